// Sign-in shared by the /auth login tab and /login: call the server, remember the user, count
// the login, toast, and go on; on failure toast and, for an unverified account, offer a new
// verification mail. The two forms differ only in texts, rules and destination.
import { useState } from "react";
import { useNavigate } from "react-router-dom";
import { trackEvent } from "@/lib/analytics";
import { errorMessage } from "@/lib/api";
import { setCurrentUser } from "@/state/session";
import { toast, type ToastInput } from "@/state/toast";
import { logIn, needsVerification } from "./api";
import { useForm } from "./useForm";
import type { FormErrors } from "./validation";

interface LoginValues {
  email: string;
  password: string;
}

export interface LoginTexts {
  success: ToastInput;
  failureTitle: string;
  failureFallback: string;
}

export function useLogin(
  check: (values: LoginValues) => FormErrors<keyof LoginValues & string>,
  texts: LoginTexts,
  destination: (email: string) => string,
) {
  const navigate = useNavigate();
  const form = useForm<LoginValues>({ email: "", password: "" }, check);
  const [unverifiedEmail, setUnverifiedEmail] = useState<string | null>(null);

  const submit = form.onSubmit(async (valid) => {
    setUnverifiedEmail(null);
    try {
      const answer = await logIn(valid.email, valid.password);
      setCurrentUser(answer.user);
      trackEvent("login", { method: "email" });
      toast({ variant: "success", ...texts.success });
      navigate(destination(answer.user?.email ?? valid.email.trim()));
    } catch (error) {
      if (needsVerification(error)) setUnverifiedEmail(valid.email.trim());
      toast({ title: texts.failureTitle, description: errorMessage(error, texts.failureFallback), variant: "destructive" });
    }
  });

  return { form, submit, unverifiedEmail };
}
