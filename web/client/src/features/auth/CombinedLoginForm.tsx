// The login tab of /auth. Success goes to the dashboard, carrying the pending search topic.
import { Link } from "react-router-dom";
import { Button } from "@/components/ui/Button";
import { dashboardPath } from "./api";
import { EmailField, PasswordField } from "./fields";
import { ResendVerificationButton } from "./ResendVerification";
import { useLogin } from "./useLogin";
import { validateCombinedLogin } from "./validation";

export function CombinedLoginForm({
  pendingSearch,
  forgotPasswordHref,
  successPath,
}: {
  pendingSearch: string | null;
  /** The /auth address of the forgot-password view (keeps the page's other parameters). */
  forgotPasswordHref: string;
  /** Overrides the dashboard as the destination (e.g. /subscribe). */
  successPath?: string;
}) {
  const { form, submit, unverifiedEmail } = useLogin(
    validateCombinedLogin,
    {
      success: { title: "Welcome back!", description: "You have signed in successfully." },
      failureTitle: "Login Failed",
      failureFallback: "Invalid email or password",
    },
    (email) => successPath ?? dashboardPath(email, pendingSearch),
  );
  const { values, errors } = form;

  return (
    <form noValidate onSubmit={submit} className="space-y-4">
      <EmailField
        id="login-email"
        value={values.email}
        onValueChange={(value) => form.setValue("email", value)}
        errors={errors.email}
      />
      <PasswordField
        id="login-password"
        label="Password"
        value={values.password}
        onValueChange={(value) => form.setValue("password", value)}
        errors={errors.password}
        after={
          <p className="text-right">
            <Link to={forgotPasswordHref} replace className="text-sm font-medium text-brand-700 hover:underline">
              Forgot password?
            </Link>
          </p>
        }
      />
      <Button type="submit" className="w-full" disabled={form.isSubmitting}>
        {form.isSubmitting ? "Signing in..." : "Sign in"}
      </Button>
      {unverifiedEmail ? (
        <div className="space-y-3 rounded-md border border-amber-200 bg-amber-50 p-4 text-sm text-amber-900">
          <p>Your email address is not verified yet. Use the link we emailed you, or ask for a new one.</p>
          <ResendVerificationButton email={unverifiedEmail} />
        </div>
      ) : null}
    </form>
  );
}
