// /reset-password?token=…: a new password under the same rule as signup. Without a token the
// page says so in a toast and sends the visitor to /auth; the form stays blocked meanwhile. A
// password the server refuses (a common one, the account's address) shows its message at the field.
import { useEffect, useRef, useState } from "react";
import { Link, useNavigate, useSearchParams } from "react-router-dom";
import { Button } from "@/components/ui/Button";
import { errorMessage } from "@/lib/api";
import { toast } from "@/state/toast";
import { resetPassword, serverFieldErrors } from "./api";
import { AuthHeading, AuthShell, PasswordField } from "./fields";
import { useForm } from "./useForm";
import { validateResetPassword } from "./validation";

export function ResetPasswordForm() {
  const navigate = useNavigate();
  const [searchParams] = useSearchParams();
  const token = searchParams.get("token")?.trim() ?? "";
  const form = useForm({ password: "", confirmPassword: "" }, validateResetPassword);
  const [isDone, setIsDone] = useState(false);
  const hasReportedMissingToken = useRef(false);
  const { values, errors } = form;

  useEffect(() => {
    if (token || hasReportedMissingToken.current) return;
    hasReportedMissingToken.current = true;
    toast({ title: "Invalid Reset Link", description: "This password reset link is invalid or expired.", variant: "destructive" });
    navigate("/auth", { replace: true });
  }, [token, navigate]);

  const submit = form.onSubmit(async (valid) => {
    if (!token) return;
    try {
      await resetPassword(token, valid.password, valid.confirmPassword);
      setIsDone(true);
    } catch (error) {
      form.showErrors(serverFieldErrors(error));
      toast({
        title: "Password Reset Failed",
        description: errorMessage(error, "Failed to reset password. The reset link may be invalid or expired."),
        variant: "destructive",
      });
    }
  });

  const backToSignIn = (
    <p className="mt-6 text-center text-sm">
      <Link to="/auth?tab=login" className="font-medium text-brand-700 hover:underline">
        Back to sign in
      </Link>
    </p>
  );

  if (isDone) {
    return (
      <AuthShell>
        <div className="space-y-4 text-center" role="status">
          <div aria-hidden="true" className="mx-auto flex h-12 w-12 items-center justify-center rounded-full bg-brand-50 text-2xl text-brand-700">
            ✓
          </div>
          <h1 className="text-2xl font-semibold tracking-tight text-slate-900">Password Reset Complete</h1>
          <p className="text-sm text-slate-600">Your password has been changed. Sign in with your new password.</p>
          <Button className="w-full" onClick={() => navigate("/auth?tab=login")}>
            Sign In
          </Button>
        </div>
      </AuthShell>
    );
  }

  return (
    <AuthShell>
      <AuthHeading title="Set a new password" description="Choose a strong password for your account." />
      <form noValidate onSubmit={submit}>
        <fieldset disabled={!token || form.isSubmitting} className="space-y-4">
          <PasswordField
            id="new-password"
            label="New Password"
            isNew
            value={values.password}
            onValueChange={(value) => form.setValue("password", value)}
            errors={errors.password}
          />
          <PasswordField
            id="confirm-new-password"
            label="Confirm New Password"
            isNew
            value={values.confirmPassword}
            onValueChange={(value) => form.setValue("confirmPassword", value)}
            errors={errors.confirmPassword}
          />
          <Button type="submit" className="w-full">
            {form.isSubmitting ? "Resetting password..." : "Reset password"}
          </Button>
        </fieldset>
      </form>
      {backToSignIn}
    </AuthShell>
  );
}
