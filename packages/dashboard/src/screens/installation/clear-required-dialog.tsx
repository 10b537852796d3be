/**
 * Asked before a save that empties a required field of an active installation: the save would
 * make it pending (no events reach it until the field is filled in again), so it is the person's
 * call, not a quiet side effect. Cancel (or Escape) keeps the form as it is, unsaved.
 */
import { Button, Dialog, Heading, Modal, ModalOverlay } from 'react-aria-components';

export function ClearRequiredDialog({
  titles,
  integration,
  onCancel,
  onConfirm,
}: {
  /** The titles of the required fields the save empties; the dialog is open while there are any. */
  titles: string[];
  integration: string;
  onCancel(): void;
  onConfirm(): void;
}) {
  const names = titles.join(' and ');
  return (
    <ModalOverlay
      className="modal-overlay"
      isDismissable
      isOpen={titles.length > 0}
      onOpenChange={(open) => {
        if (!open) onCancel();
      }}
    >
      <Modal className="modal">
        <Dialog role="alertdialog" className="dialog">
          <Heading slot="title">Clear {names}?</Heading>
          <div className="dialog-message">
            <p>
              {names} {titles.length > 1 ? 'are' : 'is'} required. Saved empty, {integration} becomes pending: it
              receives no events, and nothing is delivered, until {titles.length > 1 ? 'they are' : 'it is'} filled in
              again.
            </p>
          </div>
          <div className="row">
            <Button className="button" onPress={onCancel} autoFocus>
              Cancel
            </Button>
            <Button className="button danger" onPress={onConfirm}>
              Clear and save
            </Button>
          </div>
        </Dialog>
      </Modal>
    </ModalOverlay>
  );
}
