// The signup tab of /auth: the combined form with the new-password rule and both agreements, and
// (folded away until opened) the papers the researcher knows, to seed the topic the account starts
// with; the server's word on each bad one is listed under them.
import { useState } from "react";
import { Button } from "@/components/ui/Button";
import { NO_SEEDS, SeedPapersField, seedErrors, seedsRequest, type SeedsValue } from "@/features/seeds";
import { trackEvent } from "@/lib/analytics";
import { getPendingSearch } from "@/state/pendingSearch";
import { toast } from "@/state/toast";
import { serverFieldErrors, signUpCombined, signupFailureMessage } from "./api";
import { CheckboxField, EmailField, PasswordField, ResearchFieldSelect } from "./fields";
import { useForm } from "./useForm";
import { validateCombinedSignup, type CombinedSignupValues } from "./validation";

const EMPTY: CombinedSignupValues = {
  email: "",
  researchField: "",
  password: "",
  confirmPassword: "",
  agreeToTerms: false,
  agreeToPrivacy: false,
};

const policyLink = "font-medium text-brand-700 underline-offset-4 hover:underline";

export function CombinedSignupForm({ onCreated }: { onCreated: (email: string) => void }) {
  const form = useForm(EMPTY, validateCombinedSignup);
  const { values, errors } = form;
  const [seeds, setSeeds] = useState<SeedsValue>(NO_SEEDS);
  const [seedMessages, setSeedMessages] = useState<string[]>([]);

  const submit = form.onSubmit(async (valid) => {
    setSeedMessages([]);
    try {
      const answer = await signUpCombined(valid, getPendingSearch(), seedsRequest(seeds));
      trackEvent("sign_up", { method: "email" });
      toast({
        title: "Account Created Successfully!",
        description: "Please check your email (and spam folder) to verify your account.",
        variant: "success",
      });
      onCreated(answer.user?.email ?? valid.email.trim());
    } catch (error) {
      form.showErrors(serverFieldErrors(error));
      setSeedMessages(seedErrors(error));
      toast({ title: "Sign Up Failed", description: signupFailureMessage(error), variant: "destructive" });
    }
  });

  return (
    <form noValidate onSubmit={submit} className="space-y-4">
      <EmailField
        id="signup-email"
        value={values.email}
        onValueChange={(value) => form.setValue("email", value)}
        errors={errors.email}
      />
      <ResearchFieldSelect
        id="signup-research-field"
        value={values.researchField}
        onValueChange={(value) => form.setValue("researchField", value)}
        errors={errors.researchField}
      />
      <PasswordField
        id="signup-password"
        label="Password"
        isNew
        value={values.password}
        onValueChange={(value) => form.setValue("password", value)}
        errors={errors.password}
      />
      <PasswordField
        id="signup-confirm-password"
        label="Confirm password"
        isNew
        value={values.confirmPassword}
        onValueChange={(value) => form.setValue("confirmPassword", value)}
        errors={errors.confirmPassword}
      />
      <SeedPapersField value={seeds} onChange={setSeeds} errors={seedMessages} disabled={form.isSubmitting} collapsible />
      <CheckboxField
        id="signup-agree-terms"
        checked={values.agreeToTerms}
        onCheckedChange={(checked) => form.setValue("agreeToTerms", checked)}
        errors={errors.agreeToTerms}
      >
        I agree to the{" "}
        <a href="/terms" target="_blank" rel="noopener noreferrer" className={policyLink}>
          Terms and Conditions
        </a>
      </CheckboxField>
      <CheckboxField
        id="signup-agree-privacy"
        checked={values.agreeToPrivacy}
        onCheckedChange={(checked) => form.setValue("agreeToPrivacy", checked)}
        errors={errors.agreeToPrivacy}
      >
        I agree to the{" "}
        <a href="/privacy" target="_blank" rel="noopener noreferrer" className={policyLink}>
          Privacy Policy
        </a>
      </CheckboxField>
      <Button type="submit" className="w-full" disabled={form.isSubmitting}>
        {form.isSubmitting ? "Creating account..." : "Create account"}
      </Button>
    </form>
  );
}
