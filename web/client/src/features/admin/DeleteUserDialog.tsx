// Deleting a user from the console: the operator types the user's email to confirm.
import { useState, type FormEvent } from "react";
import { Button } from "@/components/ui/Button";
import { Dialog, DialogClose } from "@/components/ui/Dialog";
import { Field } from "@/components/ui/Field";
import { Input } from "@/components/ui/Input";
import { errorMessage } from "@/lib/api";
import { toast } from "@/state/toast";
import { deleteUser, type AdminUser } from "./api";

export function DeleteUserDialog({ user, onClose, onDeleted }: { user: AdminUser | null; onClose: () => void; onDeleted: () => void }) {
  return (
    <Dialog
      open={user !== null}
      onOpenChange={(open) => {
        if (!open) onClose();
      }}
      title="Delete this user?"
      description={user ? `${user.email}: their account, search terms, digests and ratings are deleted, and a paid plan is cancelled. This cannot be undone.` : undefined}
      widthClassName="max-w-md"
    >
      {/* Keyed by the user, so the typed email starts empty for each. */}
      {user ? <ConfirmForm key={user.id} user={user} onDeleted={onDeleted} /> : null}
    </Dialog>
  );
}

function ConfirmForm({ user, onDeleted }: { user: AdminUser; onDeleted: () => void }) {
  const [typed, setTyped] = useState("");
  const [busy, setBusy] = useState(false);
  const matches = typed.trim().toLowerCase() === user.email.toLowerCase();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!matches) return;
    setBusy(true);
    try {
      const answer = await deleteUser(user.id);
      toast({ title: "User Deleted", description: answer.message || `${user.email} has been deleted.`, variant: "success" });
      onDeleted();
    } catch (error) {
      setBusy(false);
      toast({ title: "Delete Failed", description: errorMessage(error, "The user could not be deleted. Please try again."), variant: "destructive" });
    }
  };

  return (
    <form className="mt-4 space-y-4" onSubmit={submit} noValidate>
      <Field id="delete-user-email" label={`Type ${user.email} to confirm`}>
        <Input id="delete-user-email" value={typed} autoComplete="off" onChange={(event) => setTyped(event.target.value)} disabled={busy} />
      </Field>
      <div className="flex justify-end gap-2">
        <DialogClose asChild>
          <Button variant="outline" disabled={busy}>
            Cancel
          </Button>
        </DialogClose>
        <Button type="submit" variant="destructive" disabled={!matches || busy}>
          {busy ? "Deleting..." : "Delete user"}
        </Button>
      </div>
    </form>
  );
}
