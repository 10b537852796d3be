import { useState } from 'react';
import { Button, FieldError, Form, Input, Label, Text, TextField } from 'react-aria-components';
import { ApiError } from '../../api/client';
import { ErrorNote } from '../../components/error-note';

/**
 * What the server said of one field of the body in a refused request ("invalid request: body.id:
 * must be …; body.title is required"), without the field's path.
 */
export function fieldError(error: unknown, field: string): string | undefined {
  if (!(error instanceof ApiError) || error.status !== 400) return undefined;
  const part = error.message
    .replace(/^invalid request: /, '')
    .split('; ')
    .find((p) => p.startsWith(`body.${field}:`) || p.startsWith(`body.${field} `));
  return part?.slice(`body.${field}`.length).replace(/^:\s*/, '').trim();
}

/** The platform's ids (types.ts ID_PATTERN): checked here too, so a typo is said before sending. */
const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const ID_HINT = 'Used in URLs and the API, such as acme-docs; it cannot change later.';
const checkId = (value: string) =>
  value === '' || ID_PATTERN.test(value.trim())
    ? null
    : 'Use 1 to 64 letters, digits, “_”, “-” or “.”, starting with a letter or digit.';

/**
 * The operator's form for anything made of an id and a name (an organization, a user, a space, a
 * site): both required, the server's refusal shown at the field it names, the form emptied once done.
 */
export function IdTitleForm({
  what,
  titleLabel = 'Title',
  titleField = 'title',
  submit,
  isPending,
  error,
  onEdit,
}: {
  /** What is created, for the button: "organization", "user", "space". */
  what: string;
  titleLabel?: string;
  titleField?: string;
  submit(values: { id: string; title: string }): Promise<unknown>;
  isPending: boolean;
  error: unknown;
  onEdit?(): void;
}) {
  const [id, setId] = useState('');
  const [title, setTitle] = useState('');
  const idError = fieldError(error, 'id');
  const titleError = fieldError(error, titleField);
  const edit = (set: (value: string) => void) => (value: string) => {
    set(value);
    onEdit?.();
  };
  return (
    <Form
      className="stack"
      aria-label={`Create ${/^[aeio]/.test(what) ? 'an' : 'a'} ${what}`}
      onSubmit={(event) => {
        event.preventDefault();
        if (checkId(id) !== null) return;
        void submit({ id: id.trim(), title: title.trim() }).then(
          () => {
            setId('');
            setTitle('');
          },
          () => {},
        );
      }}
    >
      <div className="columns">
        <TextField
          isRequired
          value={title}
          onChange={edit(setTitle)}
          isInvalid={titleError !== undefined ? true : undefined}
          className="field"
        >
          <Label>{titleLabel}</Label>
          <Input className="input" autoComplete="off" />
          <FieldError className="field-error">{titleError}</FieldError>
        </TextField>
        <TextField
          isRequired
          value={id}
          onChange={edit(setId)}
          validate={checkId}
          // Said as it is typed (not when the field is left, which would move the button under the pointer).
          validationBehavior="aria"
          isInvalid={idError !== undefined ? true : undefined}
          className="field"
        >
          <Label>ID</Label>
          <Text slot="description" className="description">
            {ID_HINT}
          </Text>
          <Input className="input" autoComplete="off" spellCheck={false} />
          <FieldError className="field-error">{idError}</FieldError>
        </TextField>
      </div>
      <div>
        <Button type="submit" className="button primary" isPending={isPending}>
          Create {what}
        </Button>
      </div>
      {error && idError === undefined && titleError === undefined ? (
        <ErrorNote title={`The ${what} was not created`} error={error} />
      ) : null}
    </Form>
  );
}
