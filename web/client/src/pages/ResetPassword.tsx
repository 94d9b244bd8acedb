// /reset-password?token=…: setting a new password.
import { ResetPasswordForm } from "@/features/auth/ResetPasswordForm";

export function ResetPasswordPage() {
  return <ResetPasswordForm />;
}
