// A term's lab channel (Team plan, or an operator): each digest of the term is posted to the lab's
// Slack or Mattermost channel through an incoming webhook. Without one: the webhook's address and
// "Connect"; with one: where it posts (the host only: the address is a secret), when it last
// posted, its failures in a row and last error, "Send test message" and "Disconnect". Anyone else
// reads one line inviting them to the Team plan.
import { useSignals } from "@preact/signals-react/runtime";
import { useEffect, useId, useState, type FormEvent } from "react";
import { Link } from "react-router-dom";
import { Button } from "@/components/ui/Button";
import { Input } from "@/components/ui/Input";
import { errorCode, errorMessage, fieldErrors } from "@/lib/api";
import { formatDate } from "@/lib/dates";
import { entitlementsOf } from "@/state/config";
import type { CurrentUser } from "@/state/session";
import { toast } from "@/state/toast";
import { connectChannel, disconnectChannel, fetchChannel, testChannel, type ChannelView } from "./api";

export const WEBHOOK_LABEL = "Slack or Mattermost incoming webhook URL";

/** Whether `user` may connect lab channels: a plan that has them (Team), or an operator. */
export function hasLabChannels(user: CurrentUser): boolean {
  return user.isAdmin === true || entitlementsOf(user.subscriptionTier).labChannels;
}

export function LabChannel({ termId, term, user }: { termId: string; term: string; user: CurrentUser }) {
  useSignals();
  return hasLabChannels(user) ? <LabChannelPanel termId={termId} term={term} /> : <TeamPlanInvitation />;
}

function TeamPlanInvitation() {
  return (
    <p className="text-xs text-slate-500">
      Post each digest to your lab's Slack or Mattermost channel with the{" "}
      <Link to="/subscribe" className="font-medium text-brand-700 hover:underline">
        Team plan
      </Link>
      .
    </p>
  );
}

type Stage =
  | { state: "loading" }
  | { state: "none" }
  | { state: "connected"; channel: ChannelView }
  /** The server says the plan has no lab channels (403 `requires_upgrade`). */
  | { state: "upgrade" }
  | { state: "failed"; message: string };

function LabChannelPanel({ termId, term }: { termId: string; term: string }) {
  const [stage, setStage] = useState<Stage>({ state: "loading" });

  useEffect(() => {
    let live = true;
    fetchChannel(termId).then(
      (channel) => {
        if (live) setStage(channel ? { state: "connected", channel } : { state: "none" });
      },
      (error: unknown) => {
        if (!live) return;
        setStage(
          errorCode(error) === "requires_upgrade"
            ? { state: "upgrade" }
            : { state: "failed", message: errorMessage(error, "The lab channel could not be loaded.") },
        );
      },
    );
    return () => {
      live = false;
    };
  }, [termId]);

  if (stage.state === "upgrade") return <TeamPlanInvitation />;
  return (
    <section aria-label={`Lab channel of ${term}`} className="space-y-1.5 text-xs text-slate-600">
      <p className="font-medium text-slate-700">Lab channel</p>
      {stage.state === "loading" ? null : stage.state === "failed" ? (
        <p role="alert" className="text-red-600">
          {stage.message}
        </p>
      ) : stage.state === "none" ? (
        <ConnectForm termId={termId} term={term} onConnected={(channel) => setStage({ state: "connected", channel })} onUpgrade={() => setStage({ state: "upgrade" })} />
      ) : (
        <Connected termId={termId} term={term} channel={stage.channel} onDisconnected={() => setStage({ state: "none" })} />
      )}
    </section>
  );
}

function ConnectForm({
  termId,
  term,
  onConnected,
  onUpgrade,
}: {
  termId: string;
  term: string;
  onConnected: (channel: ChannelView) => void;
  onUpgrade: () => void;
}) {
  const inputId = useId();
  const errorId = `${inputId}-error`;
  const [url, setUrl] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [connecting, setConnecting] = useState(false);

  const connect = async (event: FormEvent) => {
    event.preventDefault();
    const address = url.trim();
    if (!address || connecting) return;
    setConnecting(true);
    setError(null);
    let channel: ChannelView;
    try {
      channel = await connectChannel(termId, address);
    } catch (failure) {
      setConnecting(false);
      if (errorCode(failure) === "requires_upgrade") {
        onUpgrade();
        return;
      }
      setError(fieldErrors(failure).url?.[0] ?? errorMessage(failure, "The lab channel could not be connected."));
      return;
    }
    setConnecting(false);
    toast({ title: "Lab Channel Connected", description: `Each new digest of "${term}" is posted to ${channel.host}.`, variant: "success" });
    onConnected(channel);
  };

  return (
    <form noValidate onSubmit={connect} className="flex flex-col gap-2 sm:flex-row sm:flex-wrap sm:items-end">
      <div className="flex-1 space-y-1">
        <label htmlFor={inputId} className="block text-xs font-medium text-slate-600">
          {WEBHOOK_LABEL}
        </label>
        <Input
          id={inputId}
          type="url"
          inputMode="url"
          autoComplete="off"
          spellCheck={false}
          placeholder="https://hooks.slack.com/services/…"
          value={url}
          onChange={(event) => {
            setUrl(event.target.value);
            setError(null);
          }}
          disabled={connecting}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? errorId : undefined}
        />
      </div>
      <Button type="submit" variant="outline" disabled={connecting || !url.trim()} aria-label={`Connect the lab channel of ${term}`}>
        {connecting ? "Connecting..." : "Connect"}
      </Button>
      {error ? (
        <p id={errorId} role="alert" className="text-red-600 sm:basis-full">
          {error}
        </p>
      ) : null}
    </form>
  );
}

function Connected({ termId, term, channel, onDisconnected }: { termId: string; term: string; channel: ChannelView; onDisconnected: () => void }) {
  const [busy, setBusy] = useState<"test" | "disconnect" | null>(null);

  const test = async () => {
    setBusy("test");
    try {
      await testChannel(termId);
      toast({ title: "Test Message Sent", description: `Look for Papertide's message in the channel at ${channel.host}.`, variant: "success" });
    } catch (error) {
      toast({ title: "Test Message Failed", description: errorMessage(error, "The test message could not be sent."), variant: "destructive" });
    } finally {
      setBusy(null);
    }
  };

  const disconnect = async () => {
    setBusy("disconnect");
    try {
      await disconnectChannel(termId);
    } catch (error) {
      setBusy(null);
      toast({ title: "Disconnect Failed", description: errorMessage(error, "The lab channel could not be disconnected."), variant: "destructive" });
      return;
    }
    toast({ title: "Lab Channel Disconnected", description: `Digests of "${term}" are no longer posted to ${channel.host}.`, variant: "success" });
    onDisconnected();
  };

  return (
    <div className="space-y-1.5">
      <p>
        Posting to <span className="font-medium text-slate-900">{channel.host}</span>
      </p>
      <p>{channel.lastPostedAt ? `Last posted: ${formatDate(channel.lastPostedAt)}` : "Nothing posted yet"}</p>
      {channel.failures > 0 ? (
        <div className="rounded-md bg-red-50 px-2 py-1 text-red-700">
          <p>{`Failures in a row: ${channel.failures}`}</p>
          {channel.lastError ? <p>{`Last error: ${channel.lastError}`}</p> : null}
        </div>
      ) : null}
      <div className="flex flex-wrap gap-2">
        <Button size="sm" variant="outline" disabled={busy !== null} onClick={() => void test()} aria-label={`Send test message to the lab channel of ${term}`}>
          {busy === "test" ? "Sending..." : "Send test message"}
        </Button>
        <Button
          size="sm"
          variant="ghost"
          className="text-red-600 hover:bg-red-50"
          disabled={busy !== null}
          onClick={() => void disconnect()}
          aria-label={`Disconnect the lab channel of ${term}`}
        >
          {busy === "disconnect" ? "Disconnecting..." : "Disconnect"}
        </Button>
      </div>
    </div>
  );
}
