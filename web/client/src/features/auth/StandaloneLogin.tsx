// The standalone /login page. With ?redirect=subscribe success goes to /subscribe, otherwise
// to /dashboard?email=….
import { useState, type FormEvent } from "react";
import { Link, useNavigate, useSearchParams } from "react-router-dom";
import { Button } from "@/components/ui/Button";
import { trackEvent } from "@/lib/analytics";
import { errorMessage } from "@/lib/api";
import { setCurrentUser } from "@/state/session";
import { toast } from "@/state/toast";
import { dashboardPath, logIn, needsVerification } from "./api";
import { AuthHeading, AuthShell, EmailField, PasswordField } from "./fields";
import { ResendVerificationButton } from "./ResendVerification";
import { useForm } from "./useForm";
import { validateStandaloneLogin } from "./validation";

export function StandaloneLogin() {
  const navigate = useNavigate();
  const [searchParams] = useSearchParams();
  const redirectsToSubscribe = searchParams.get("redirect") === "subscribe";
  const form = useForm({ email: "", password: "" }, validateStandaloneLogin);
  const [unverifiedEmail, setUnverifiedEmail] = useState<string | null>(null);
  const { values, errors } = form;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const valid = form.validate();
    if (!valid) return;
    setUnverifiedEmail(null);
    void form.submitWith(async () => {
      try {
        const answer = await logIn(valid.email, valid.password);
        setCurrentUser(answer.user);
        trackEvent("login", { method: "email" });
        toast({ title: "Login Successful!", description: "Welcome back to Papertide.", variant: "success" });
        const email = answer.user?.email ?? valid.email.trim();
        navigate(redirectsToSubscribe ? "/subscribe" : dashboardPath(email));
      } catch (error) {
        if (needsVerification(error)) setUnverifiedEmail(valid.email.trim());
        toast({
          title: "Login failed",
          description: errorMessage(error, "Login failed. Please check your credentials."),
          variant: "destructive",
        });
      }
    });
  };

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
