// The standalone /signup page. Success goes to /login, or /login?redirect=subscribe when the
// visitor came from the plans.
import { Link, useNavigate, useSearchParams } from "react-router-dom";
import { Button } from "@/components/ui/Button";
import { trackEvent } from "@/lib/analytics";
import { getPendingSearch } from "@/state/pendingSearch";
import { toast } from "@/state/toast";
import { serverFieldErrors, signUpStandalone, signupFailureMessage } from "./api";
import { AuthHeading, AuthShell, EmailField, PasswordField, TextField } from "./fields";
import { useForm } from "./useForm";
import { validateStandaloneSignup, type StandaloneSignupValues } from "./validation";

const EMPTY: StandaloneSignupValues = { email: "", password: "", confirmPassword: "", researchField: "" };

export function StandaloneSignup() {
  const navigate = useNavigate();
  const [searchParams] = useSearchParams();
  const redirectsToSubscribe = searchParams.get("redirect") === "subscribe";
  const form = useForm(EMPTY, validateStandaloneSignup);
  const { values, errors } = form;
  const loginHref = redirectsToSubscribe ? "/login?redirect=subscribe" : "/login";

  const submit = form.onSubmit(async (valid) => {
    try {
      await signUpStandalone(valid, getPendingSearch());
      trackEvent("sign_up", { method: "email" });
      toast({
        title: "Account created successfully!",
        description: "Please check your email (and spam folder) to verify your account, then sign in.",
        variant: "success",
      });
      navigate(loginHref);
    } catch (error) {
      form.showErrors(serverFieldErrors(error));
      toast({ title: "Sign Up Failed", description: signupFailureMessage(error), variant: "destructive" });
    }
  });

  return (
    <AuthShell>
      <AuthHeading title="Create your account" description="Start receiving weekly research digests" />
      <form noValidate onSubmit={submit} className="space-y-4">
        <EmailField
          id="email"
          value={values.email}
          onValueChange={(value) => form.setValue("email", value)}
          errors={errors.email}
        />
        <TextField
          id="researchField"
          label="Research field"
          placeholder="e.g. Neuroscience"
          value={values.researchField}
          onValueChange={(value) => form.setValue("researchField", value)}
          errors={errors.researchField}
        />
        <PasswordField
          id="password"
          label="Password"
          isNew
          value={values.password}
          onValueChange={(value) => form.setValue("password", value)}
          errors={errors.password}
        />
        <PasswordField
          id="confirmPassword"
          label="Confirm password"
          isNew
          value={values.confirmPassword}
          onValueChange={(value) => form.setValue("confirmPassword", value)}
          errors={errors.confirmPassword}
        />
        <Button type="submit" className="w-full" disabled={form.isSubmitting}>
          {form.isSubmitting ? "Creating account..." : "Create account"}
        </Button>
      </form>
      <p className="mt-6 text-center text-sm text-slate-600">
        Already have an account?{" "}
        <Link to={loginHref} className="font-medium text-brand-700 hover:underline">
          Sign in
        </Link>
      </p>
    </AuthShell>
  );
}
