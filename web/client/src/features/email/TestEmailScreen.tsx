// /test-email (spec §2 Email testing page, §5, §8): a signed-in user sends themself a welcome
// mail or a sample digest, or (on a paid plan) has their weekly digest built now. Test mail goes only to the
// user's own address; operators may use any (the server enforces both, and rate limits them).
// A visitor is asked to sign in. Who is signed in comes from the page's one session check
// (shared with the header); 'Try again' asks afresh.
import { useEffect, useState, type FormEvent } from "react";
import { Link } from "react-router-dom";
import { buttonClasses, Button } from "@/components/ui/Button";
import { Card, CardContent, CardHeader } from "@/components/ui/Card";
import { Field } from "@/components/ui/Field";
import { Input } from "@/components/ui/Input";
import { Spinner } from "@/components/ui/Spinner";
import { errorMessage } from "@/lib/api";
import { loadSession, refreshCurrentUser, type CurrentUser } from "@/state/session";
import { toast } from "@/state/toast";
import { sendTestEmail, triggerDigest, type TestEmailType, type TriggerDigestAnswer } from "./api";

export const MSG_EMAIL_REQUIRED = "Please enter an email address";

type Visit = { state: "checking" } | { state: "visitor" } | { state: "unknown" } | { state: "signedIn"; user: CurrentUser };

export function TestEmailScreen() {
  const [visit, setVisit] = useState<Visit>({ state: "checking" });
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    let isCurrent = true;
    setVisit({ state: "checking" });
    const check = attempt === 0 ? loadSession() : refreshCurrentUser();
    check.then(
      (user) => {
        if (isCurrent) setVisit(user ? { state: "signedIn", user } : { state: "visitor" });
      },
      () => {
        if (isCurrent) setVisit({ state: "unknown" });
      },
    );
    return () => {
      isCurrent = false;
    };
  }, [attempt]);

  return (
    <main className="mx-auto w-full max-w-xl flex-1 px-4 py-12 sm:px-6">
      <Card>
        <CardHeader>
          <h1 className="text-xl font-semibold tracking-tight">Email testing</h1>
          <p className="text-sm text-slate-600">Send yourself the mails Papertide sends, to see how they look in your inbox.</p>
        </CardHeader>
        <CardContent>
          {visit.state === "checking" ? (
            <div className="flex justify-center py-6">
              <Spinner label="Checking your sign-in" />
            </div>
          ) : visit.state === "visitor" ? (
            <div className="space-y-4">
              <p className="text-sm text-slate-700">Sign in to send test mail to your address.</p>
              <Link to="/auth?tab=login" className={buttonClasses("primary", "md")}>
                Sign in
              </Link>
            </div>
          ) : visit.state === "unknown" ? (
            <div className="space-y-4">
              <p role="alert" className="text-sm text-red-600">
                We could not check whether you are signed in. Please try again.
              </p>
              <Button variant="outline" onClick={() => setAttempt((count) => count + 1)}>
                Try again
              </Button>
            </div>
          ) : (
            <TestEmailForm user={visit.user} />
          )}
        </CardContent>
      </Card>
    </main>
  );
}

type Action = TestEmailType | "trigger";

function TestEmailForm({ user }: { user: CurrentUser }) {
  const [email, setEmail] = useState(user.email);
  const [emailError, setEmailError] = useState<string | undefined>();
  const [running, setRunning] = useState<Action | null>(null);

  const send = async (type: TestEmailType) => {
    const address = email.trim();
    if (!address) {
      setEmailError(MSG_EMAIL_REQUIRED);
      return;
    }
    setEmailError(undefined);
    setRunning(type);
    try {
      const answer = await sendTestEmail(address, type);
      toast({ title: "Test Email Sent", description: answer?.message || `Test mail is on its way to ${address}.`, variant: "success" });
    } catch (error) {
      toast({
        title: "Failed to send test email",
        description: errorMessage(error, "The test mail could not be sent. Please try again later."),
        variant: "destructive",
      });
    } finally {
      setRunning(null);
    }
  };

  const trigger = async () => {
    setRunning("trigger");
    try {
      const answer = await triggerDigest();
      toast({ title: "Weekly Digest Triggered", description: describeTriggered(answer, user.email), variant: "success" });
    } catch (error) {
      toast({
        title: "Failed to trigger digest",
        description: errorMessage(error, "Your weekly digest could not be built. Please try again later."),
        variant: "destructive",
      });
    } finally {
      setRunning(null);
    }
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void send("welcome");
  };

  const isBusy = running !== null;
  // The server refuses a triggered digest on the free plan (it would spend a free digest).
  const canTrigger = user.subscriptionTier !== "free";

  return (
    <form noValidate onSubmit={submit} className="space-y-5" aria-busy={isBusy}>
      <Field id="test-email-address" label="Email address" error={emailError}>
        <Input
          id="test-email-address"
          name="email"
          type="email"
          autoComplete="email"
          value={email}
          onChange={(event) => {
            setEmail(event.target.value);
            if (emailError) setEmailError(undefined);
          }}
          aria-invalid={emailError ? true : undefined}
          aria-describedby={emailError ? "test-email-address-error test-email-address-note" : "test-email-address-note"}
        />
      </Field>
      <p id="test-email-address-note" className="text-sm text-slate-600">
        {user.isAdmin
          ? "Test mail normally goes to your own address; as an operator you may send it to any address."
          : "Test mail goes to your own address."}
      </p>
      <div className="flex flex-col gap-2 sm:flex-row sm:flex-wrap">
        <Button type="submit" disabled={isBusy}>
          Send Welcome Email
        </Button>
        <Button variant="outline" disabled={isBusy} onClick={() => void send("digest")}>
          Send Sample Digest
        </Button>
        {canTrigger ? (
          <Button variant="outline" disabled={isBusy} onClick={() => void trigger()}>
            Trigger Weekly Digest
          </Button>
        ) : null}
      </div>
      <p className="text-xs text-slate-500">
        {canTrigger
          ? `The sample digest is your latest digest. Triggering the weekly digest builds one for each of your active search terms now and mails it to ${user.email}.`
          : "The sample digest is your latest digest. Your weekly digests come on their own: on the free plan each one uses one of your free digests, so none is built on demand."}
      </p>
      {isBusy ? (
        <div className="flex items-center gap-2 text-sm text-slate-600">
          <Spinner label={running === "trigger" ? "Building your digest" : "Sending test mail"} />
          <span>{running === "trigger" ? "Building your digest..." : "Sending..."}</span>
        </div>
      ) : null}
    </form>
  );
}

function describeTriggered(answer: TriggerDigestAnswer | undefined, email: string): string {
  const digests = answer?.digests;
  if (typeof digests !== "number") return `Your weekly digest is on its way to ${email}.`;
  const papers = answer?.papersFound ?? 0;
  const digestWord = digests === 1 ? "digest" : "digests";
  const paperWord = papers === 1 ? "paper" : "papers";
  return `${digests} ${digestWord} with ${papers} ${paperWord} on the way to ${email}.`;
}
