// /login: the standalone sign-in page.
import { StandaloneLogin } from "@/features/auth/StandaloneLogin";

export function LoginPage() {
  return <StandaloneLogin />;
}
