// The 'Resend verification email' action, offered after signup and when a sign-in is refused
// because the address is not verified yet.
import { useState } from "react";
import { Button } from "@/components/ui/Button";
import { errorMessage } from "@/lib/api";
import { toast } from "@/state/toast";
import { resendVerification } from "./api";

export function ResendVerificationButton({ email, variant = "outline" }: { email: string; variant?: "outline" | "link" }) {
  const [isSending, setIsSending] = useState(false);

  const resend = async () => {
    setIsSending(true);
    try {
      await resendVerification(email);
      toast({
        title: "Verification Email Sent",
        description: "If your account is waiting for verification, a new link is on its way. Please check your spam folder too.",
        variant: "success",
      });
    } catch (error) {
      toast({
        title: "Resend Failed",
        description: errorMessage(error, "Failed to resend the verification email. Please try again."),
        variant: "destructive",
      });
    } finally {
      setIsSending(false);
    }
  };

  return (
    <Button variant={variant} className="w-full" onClick={resend} disabled={isSending}>
      {isSending ? "Sending..." : "Resend verification email"}
    </Button>
  );
}

/** What the combined signup shows once the account exists. */
export function CheckYourEmail({ email }: { email: string }) {
  return (
    <div className="space-y-4 text-center" aria-live="polite">
      <div aria-hidden="true" className="mx-auto flex h-12 w-12 items-center justify-center rounded-full bg-brand-50 text-2xl">
        ✉
      </div>
      <h2 className="text-xl font-semibold text-slate-900">Check your email</h2>
      <p className="text-sm text-slate-600">
        We sent a verification link to <strong className="text-slate-900">{email}</strong>. Click it to verify your account; if
        it is not in your inbox, look in your spam folder.
      </p>
      <ResendVerificationButton email={email} />
    </div>
  );
}
