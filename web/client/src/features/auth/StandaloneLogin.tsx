// The standalone /login page. With ?redirect=subscribe success goes to /subscribe, otherwise
// to /dashboard?email=….
import { Link, useSearchParams } from "react-router-dom";
import { Button } from "@/components/ui/Button";
import { dashboardPath } from "./api";
import { AuthHeading, AuthShell, EmailField, PasswordField } from "./fields";
import { ResendVerificationButton } from "./ResendVerification";
import { useLogin } from "./useLogin";
import { validateStandaloneLogin } from "./validation";

export function StandaloneLogin() {
  const [searchParams] = useSearchParams();
  const redirectsToSubscribe = searchParams.get("redirect") === "subscribe";
  const { form, submit, unverifiedEmail } = useLogin(
    validateStandaloneLogin,
    {
      success: { title: "Login Successful!", description: "Welcome back to Papertide." },
      failureTitle: "Login failed",
      failureFallback: "Login failed. Please check your credentials.",
    },
    (email) => (redirectsToSubscribe ? "/subscribe" : dashboardPath(email)),
  );
  const { values, errors } = form;

  const signupHref = redirectsToSubscribe ? "/signup?redirect=subscribe" : "/signup";

  return (
    <AuthShell>
      <AuthHeading title="Sign in" description="Sign in to manage your research digests" />
      <form noValidate onSubmit={submit} className="space-y-4">
        <EmailField
          id="email"
          value={values.email}
          onValueChange={(value) => form.setValue("email", value)}
          errors={errors.email}
        />
        <PasswordField
          id="password"
          label="Password"
          value={values.password}
          onValueChange={(value) => form.setValue("password", value)}
          errors={errors.password}
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
      <p className="mt-6 text-center text-sm text-slate-600">
        Don't have an account?{" "}
        <Link to={signupHref} className="font-medium text-brand-700 hover:underline">
          Sign up
        </Link>
      </p>
    </AuthShell>
  );
}
