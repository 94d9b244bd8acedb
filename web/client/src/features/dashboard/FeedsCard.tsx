// The 'Feeds' card: the user's private Atom feeds — every digest, and each term's — each address
// in a read-only field with a Copy button, a line saying anyone with an address can read its feed,
// and "Renew feed addresses" behind a confirmation (the old addresses stop working). The list
// follows the search terms: a term added or deleted reloads it.
import { useSignals } from "@preact/signals-react/runtime";
import { useEffect, useId, useState } from "react";
import { Button } from "@/components/ui/Button";
import { SectionCard } from "@/components/ui/Card";
import { Input } from "@/components/ui/Input";
import { Spinner } from "@/components/ui/Spinner";
import { errorMessage } from "@/lib/api";
import { toast } from "@/state/toast";
import { fetchFeeds, renewFeeds, type FeedsView } from "./api";
import { ConfirmDialog } from "./ConfirmDialog";
import { searchTerms } from "./store";

export const ALL_DIGESTS_FEED_LABEL = "All your digests";

export function FeedsCard() {
  useSignals();
  const [feeds, setFeeds] = useState<FeedsView | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [renewing, setRenewing] = useState(false);
  // The terms as the dashboard knows them: another set of terms has other feeds.
  const termIds = (searchTerms.value ?? []).map((term) => term.id).join(" ");

  useEffect(() => {
    let live = true;
    fetchFeeds().then(
      (loaded) => {
        if (!live) return;
        setFeeds(loaded);
        setError(null);
      },
      (failure: unknown) => {
        if (live) setError(errorMessage(failure, "Your feeds could not be loaded."));
      },
    );
    return () => {
      live = false;
    };
  }, [termIds]);

  const renew = async () => {
    setRenewing(true);
    try {
      setFeeds(await renewFeeds());
      toast({ title: "Feed Addresses Renewed", description: "The old addresses no longer work: give your feed reader the new ones.", variant: "success" });
    } catch (failure) {
      toast({ title: "Renew Failed", description: errorMessage(failure, "Your feed addresses could not be renewed."), variant: "destructive" });
    } finally {
      setRenewing(false);
      setConfirming(false);
    }
  };

  return (
    <SectionCard
      title="Feeds"
      intro={<p className="text-sm text-slate-600">Follow your digests in a feed reader.</p>}
      contentClassName="space-y-3"
    >
      <p className="text-sm text-slate-600">These feeds are private: anyone with an address can read its feed, so keep them to yourself.</p>
      {error ? (
        <p role="alert" className="text-sm text-red-600">
          {error}
        </p>
      ) : null}
      {feeds ? (
        <>
          <FeedAddress label={ALL_DIGESTS_FEED_LABEL} url={feeds.digestsUrl} />
          {feeds.terms.map((feed) => (
            <FeedAddress key={feed.termId} label={feed.term} url={feed.url} />
          ))}
          <Button variant="outline" className="w-full" onClick={() => setConfirming(true)}>
            Renew feed addresses
          </Button>
        </>
      ) : error ? null : (
        <div className="flex justify-center py-2">
          <Spinner label="Loading your feeds" />
        </div>
      )}
      <ConfirmDialog
        open={confirming}
        onOpenChange={(open) => {
          if (!renewing) setConfirming(open);
        }}
        title="Renew your feed addresses?"
        description="Every feed gets a new address, and the old addresses stop working: a feed reader that uses one needs the new address."
        confirmLabel="Renew addresses"
        cancelLabel="Keep addresses"
        busy={renewing}
        onConfirm={() => void renew()}
      />
    </SectionCard>
  );
}

function FeedAddress({ label, url }: { label: string; url: string }) {
  const id = useId();

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(url);
    } catch {
      (document.getElementById(id) as HTMLInputElement | null)?.select();
      toast({ title: "Copy Failed", description: "Select the address and copy it yourself.", variant: "destructive" });
      return;
    }
    toast({ title: "Feed Address Copied", description: "Paste it into your feed reader.", variant: "success" });
  };

  return (
    <div className="space-y-1">
      <label htmlFor={id} className="block break-words text-sm font-medium text-slate-700">
        {label}
      </label>
      <div className="flex gap-2">
        <Input id={id} readOnly value={url} onFocus={(event) => event.target.select()} className="min-w-0 font-mono text-xs" />
        <Button variant="outline" onClick={() => void copy()} aria-label={`Copy the feed address of ${label}`}>
          Copy
        </Button>
      </div>
    </div>
  );
}
