// The forgot-password view of /auth: one email field; the answer never tells whether the
// account exists.
import { Link } from "react-router-dom";
import { Button } from "@/components/ui/Button";
import { errorMessage } from "@/lib/api";
import { toast } from "@/state/toast";
import { requestPasswordReset } from "./api";
import { EmailField } from "./fields";
import { useForm } from "./useForm";
import { validateForgotPassword } from "./validation";

export function ForgotPasswordForm({ signInHref }: { signInHref: string }) {
  const form = useForm({ email: "" }, validateForgotPassword);

  const submit = form.onSubmit(async (valid) => {
    try {
      await requestPasswordReset(valid.email);
      toast({
        title: "Password Reset Email Sent",
        description: "If an account exists for that address, you will receive a link to reset your password shortly.",
        variant: "success",
      });
    } catch (error) {
      toast({ title: "Request Failed", description: errorMessage(error, "Failed to send password reset email"), variant: "destructive" });
    }
  });

  return (
    <form noValidate onSubmit={submit} className="space-y-4">
      <EmailField
        id="forgot-email"
        value={form.values.email}
        onValueChange={(value) => form.setValue("email", value)}
        errors={form.errors.email}
      />
      <Button type="submit" className="w-full" disabled={form.isSubmitting}>
        {form.isSubmitting ? "Sending..." : "Send reset link"}
      </Button>
      <p className="text-center text-sm">
        <Link to={signInHref} replace className="font-medium text-brand-700 hover:underline">
          Back to sign in
        </Link>
      </p>
    </form>
  );
}
