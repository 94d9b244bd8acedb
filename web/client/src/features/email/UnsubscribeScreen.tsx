// /unsubscribe?token=… (spec §2 Unsubscribe page, §4, §5, §8): turns weekly digests off for the
// link's user, asking the server once per token (StrictMode runs effects twice). Loading, then
// success or error, each with links to the homepage and to support.
import { useSignals } from "@preact/signals-react/runtime";
import { useEffect, useState, type ReactNode } from "react";
import { Link, useSearchParams } from "react-router-dom";
import { buttonClasses } from "@/components/ui/Button";
import { Card } from "@/components/ui/Card";
import { Spinner } from "@/components/ui/Spinner";
import { ApiError } from "@/lib/api";
import { appConfig, loadAppConfig } from "@/state/config";
import { unsubscribeOnce } from "./api";

export const MSG_INVALID_LINK = "Invalid unsubscribe link. Please check your email for the correct link.";
export const MSG_UNSUBSCRIBE_FAILED = "Failed to unsubscribe. Please try again later.";
const MSG_UNSUBSCRIBED = "You will no longer receive weekly digests.";

type Unsubscription = { state: "loading" } | { state: "done"; message: string } | { state: "failed"; message: string };

export function UnsubscribeScreen() {
  const [searchParams] = useSearchParams();
  const token = searchParams.get("token")?.trim() ?? "";
  const [unsubscription, setUnsubscription] = useState<Unsubscription>({ state: "loading" });

  useEffect(() => {
    void loadAppConfig();
  }, []);

  useEffect(() => {
    if (!token) return;
    let isCurrent = true;
    setUnsubscription({ state: "loading" });
    unsubscribeOnce(token).then(
      (answer) => {
        if (isCurrent) setUnsubscription({ state: "done", message: answer?.message || MSG_UNSUBSCRIBED });
      },
      (error: unknown) => {
        if (isCurrent) setUnsubscription({ state: "failed", message: failureMessage(error) });
      },
    );
    return () => {
      isCurrent = false;
    };
  }, [token]);

  const shown: Unsubscription = token ? unsubscription : { state: "failed", message: MSG_INVALID_LINK };

  return (
    <main className="flex flex-1 items-center justify-center px-4 py-16">
      <Card className="w-full max-w-md p-8">
        {shown.state === "loading" ? (
          <div className="flex flex-col items-center gap-4 py-6 text-center">
            <Spinner label="Unsubscribing" />
            <p className="text-sm text-slate-600">Unsubscribing you from weekly digests...</p>
          </div>
        ) : shown.state === "done" ? (
          <Outcome icon="✓" title="You're unsubscribed" message={shown.message} />
        ) : (
          <Outcome icon="!" title="We could not unsubscribe you" message={shown.message} isError />
        )}
      </Card>
    </main>
  );
}

/** A 404 (no such token) is an invalid link, in the spec's words (§5); anything else its generic text. */
function failureMessage(error: unknown): string {
  if (error instanceof ApiError && error.status === 404) return MSG_INVALID_LINK;
  return MSG_UNSUBSCRIBE_FAILED;
}

function Outcome({ icon, title, message, isError = false }: { icon: ReactNode; title: string; message: string; isError?: boolean }) {
  return (
    <div className="space-y-4 text-center">
      <div
        aria-hidden="true"
        className={`mx-auto flex h-12 w-12 items-center justify-center rounded-full text-2xl ${isError ? "bg-red-50 text-red-600" : "bg-brand-50 text-brand-700"}`}
      >
        {icon}
      </div>
      <h1 className="text-2xl font-semibold tracking-tight text-slate-900">{title}</h1>
      <p role={isError ? "alert" : undefined} className="text-sm text-slate-600">
        {message}
      </p>
      <HelpLinks />
    </div>
  );
}

function HelpLinks() {
  useSignals();
  const supportEmail = appConfig.value.supportEmail;
  return (
    <div className="flex flex-col gap-2 pt-2 sm:flex-row sm:justify-center">
      <Link to="/" className={buttonClasses("primary", "md")}>
        Go to homepage
      </Link>
      {supportEmail ? (
        <a href={`mailto:${supportEmail}`} className={buttonClasses("outline", "md")}>
          Contact support
        </a>
      ) : null}
    </div>
  );
}
