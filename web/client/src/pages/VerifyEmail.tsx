// /verify-email?token=…: email verification, then the pending search or the dashboard.
import { VerifyEmail } from "@/features/auth/VerifyEmail";

export function VerifyEmailPage() {
  return <VerifyEmail />;
}
