/**
 * A button that asks first: pressing it opens a dialog (an alert dialog, focus inside it) that says
 * what will happen; only its confirm button acts. Escape or Cancel leaves everything as it was.
 */
import type { ReactNode } from 'react';
import { Button, Dialog, DialogTrigger, Heading, Modal, ModalOverlay } from 'react-aria-components';

export function ConfirmButton({
  children,
  title,
  message,
  confirmLabel,
  onConfirm,
  isPending,
  isDisabled,
  danger = false,
  primary = false,
}: {
  children: ReactNode;
  title: string;
  message: ReactNode;
  confirmLabel: string;
  onConfirm: () => void;
  isPending?: boolean;
  isDisabled?: boolean;
  danger?: boolean;
  /** The trigger is the screen's main action (Install). */
  primary?: boolean;
}) {
  return (
    <DialogTrigger>
      <Button
        className={danger ? 'button danger' : primary ? 'button primary' : 'button'}
        isPending={isPending}
        isDisabled={isDisabled}
      >
        {children}
      </Button>
      <ModalOverlay className="modal-overlay" isDismissable>
        <Modal className="modal">
          <Dialog role="alertdialog" className="dialog">
            {({ close }) => (
              <>
                <Heading slot="title">{title}</Heading>
                <div className="dialog-message">{message}</div>
                <div className="row">
                  <Button className="button" onPress={close} autoFocus>
                    Cancel
                  </Button>
                  <Button
                    className={danger ? 'button danger' : 'button primary'}
                    onPress={() => {
                      close();
                      onConfirm();
                    }}
                  >
                    {confirmLabel}
                  </Button>
                </div>
              </>
            )}
          </Dialog>
        </Modal>
      </ModalOverlay>
    </DialogTrigger>
  );
}
