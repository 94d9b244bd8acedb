// A yes-or-no question before something that cannot be undone (deleting a search term,
// cancelling a subscription): Cancel closes it, the confirm button runs `onConfirm`.
import type { ReactNode } from "react";
import { Button } from "@/components/ui/Button";
import { Dialog, DialogClose } from "@/components/ui/Dialog";

export interface ConfirmDialogProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  title: string;
  description: ReactNode;
  confirmLabel: string;
  /** The label of the button that leaves things as they are. */
  cancelLabel?: string;
  /** While true, both buttons are disabled (the confirmed action is running). */
  busy?: boolean;
  onConfirm: () => void;
}

export function ConfirmDialog({ open, onOpenChange, title, description, confirmLabel, cancelLabel = "Cancel", busy = false, onConfirm }: ConfirmDialogProps) {
  return (
    <Dialog open={open} onOpenChange={onOpenChange} title={title} description={description} widthClassName="max-w-md">
      <div className="mt-6 flex justify-end gap-2">
        <DialogClose asChild>
          <Button variant="outline" disabled={busy}>
            {cancelLabel}
          </Button>
        </DialogClose>
        <Button variant="destructive" disabled={busy} onClick={onConfirm}>
          {confirmLabel}
        </Button>
      </div>
    </Dialog>
  );
}
