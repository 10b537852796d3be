import { useRef, useState } from 'react';
import { Button, Input, Label, Text, TextField } from 'react-aria-components';

/**
 * A value to hand on (a sign-in link, a new user's API token): read-only, selected on focus, with
 * Copy. Where the browser refuses the clipboard, the value is selected and the person is told to
 * copy it themselves.
 */
export function CopyField({ label, value, description }: { label: string; value: string; description?: string }) {
  const input = useRef<HTMLInputElement>(null);
  const [said, setSaid] = useState('');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setSaid('Copied.');
    } catch {
      input.current?.select();
      setSaid('Selected: copy it with Ctrl+C (⌘C on a Mac).');
    }
  };
  return (
    <div className="stack copy-field">
      <TextField value={value} isReadOnly className="field">
        <Label>{label}</Label>
        {description ? (
          <Text slot="description" className="description">
            {description}
          </Text>
        ) : null}
        <Input ref={input} className="input" onFocus={(event) => event.currentTarget.select()} />
      </TextField>
      <div className="row">
        <Button className="button" aria-label={`Copy ${label.toLowerCase()}`} onPress={() => void copy()}>
          Copy
        </Button>
        <span role="status" className="muted">
          {said}
        </span>
      </div>
    </div>
  );
}
