// /auth: the combined sign-up, sign-in and forgot-password page.
import { AuthView } from "@/features/auth/AuthView";

export function AuthPage() {
  return <AuthView />;
}
