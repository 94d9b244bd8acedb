// /signup: the standalone account creation page.
import { StandaloneSignup } from "@/features/auth/StandaloneSignup";

export function SignupPage() {
  return <StandaloneSignup />;
}
