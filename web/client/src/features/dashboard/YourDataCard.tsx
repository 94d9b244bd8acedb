// The 'Your Data' card: the user downloads everything the service keeps about them as
// the JSON file the server names, or deletes their account behind a password check.
import { useState, type FormEvent } from "react";
import { useNavigate } from "react-router-dom";
import { Button } from "@/components/ui/Button";
import { SectionCard } from "@/components/ui/Card";
import { Dialog, DialogClose } from "@/components/ui/Dialog";
import { Field } from "@/components/ui/Field";
import { Input } from "@/components/ui/Input";
import { errorMessage } from "@/lib/api";
import { saveBlob } from "@/lib/download";
import { endSession, type CurrentUser } from "@/state/session";
import { toast } from "@/state/toast";
import { deleteMyAccount, downloadMyData } from "./api";

export const ACCOUNT_DELETED_TEXT = "Your account has been deleted.";

export function YourDataCard({ user }: { user: CurrentUser }) {
  const [downloading, setDownloading] = useState(false);
  const [deleting, setDeleting] = useState(false);

  const download = async () => {
    setDownloading(true);
    try {
      const file = await downloadMyData(user.id);
      saveBlob(file.blob, file.filename);
    } catch (error) {
      toast({ title: "Download Failed", description: errorMessage(error, "Your data could not be exported. Please try again."), variant: "destructive" });
    } finally {
      setDownloading(false);
    }
  };

  return (
    <SectionCard
      title="Your Data"
      intro={<p className="text-sm text-slate-600">Everything Papertide keeps about you is yours to take or to delete.</p>}
      contentClassName="space-y-3"
    >
      <Button variant="outline" className="w-full" onClick={download} disabled={downloading}>
        {downloading ? "Preparing your data..." : "Download my data"}
      </Button>
      <Button variant="outline" className="w-full text-red-600 hover:bg-red-50" onClick={() => setDeleting(true)}>
        Delete my account
      </Button>
      <DeleteAccountDialog user={user} open={deleting} onOpenChange={setDeleting} />
    </SectionCard>
  );
}

function DeleteAccountDialog({ user, open, onOpenChange }: { user: CurrentUser; open: boolean; onOpenChange: (open: boolean) => void }) {
  const navigate = useNavigate();
  const [password, setPassword] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const close = (next: boolean) => {
    if (busy) return;
    if (!next) {
      setPassword("");
      setError(null);
    }
    onOpenChange(next);
  };

  const confirm = async (event: FormEvent) => {
    event.preventDefault();
    if (!password) {
      setError("Please enter your password.");
      return;
    }
    setBusy(true);
    setError(null);
    let message: string;
    try {
      message = (await deleteMyAccount(user.id, password)).message || ACCOUNT_DELETED_TEXT;
    } catch (failure) {
      setBusy(false);
      setError(errorMessage(failure, "Your account could not be deleted. Please try again."));
      return;
    }
    endSession();
    navigate("/", { replace: true });
    toast({ title: "Account Deleted", description: message, variant: "success" });
  };

  return (
    <Dialog
      open={open}
      onOpenChange={close}
      title="Delete your account?"
      description="This cannot be undone: your account, search terms, digests and ratings are deleted."
      dismissible={!busy}
      widthClassName="max-w-md"
    >
      <form className="mt-4 space-y-4" onSubmit={confirm} noValidate>
        <ul className="list-disc space-y-1 pl-5 text-sm text-slate-600">
          <li>A paid plan is cancelled first; you are not charged again.</li>
          <li>We send one mail to {user.email} confirming the deletion, and nothing after it.</li>
        </ul>
        <Field id="delete-account-password" label="Your password" error={error ?? undefined}>
          <Input
            id="delete-account-password"
            type="password"
            autoComplete="current-password"
            value={password}
            onChange={(event) => setPassword(event.target.value)}
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? "delete-account-password-error" : undefined}
            disabled={busy}
          />
        </Field>
        <div className="flex justify-end gap-2">
          <DialogClose asChild>
            <Button variant="outline" disabled={busy}>
              Keep my account
            </Button>
          </DialogClose>
          <Button type="submit" variant="destructive" disabled={busy}>
            {busy ? "Deleting..." : "Delete my account"}
          </Button>
        </div>
      </form>
    </Dialog>
  );
}
