/**
 * What a Settings section says after an action: the error (an alert) and the status line (a polite status), each
 * only when there is one. The classes default to the usual look; a section with a quieter line passes its own.
 */
export function Feedback({
  error,
  status,
  errorClassName = 'error-text',
  statusClassName = 'ok-text',
}: {
  error?: string | null;
  status?: string | null;
  errorClassName?: string;
  statusClassName?: string;
}) {
  return (
    <>
      {error && (
        <p role="alert" className={errorClassName}>
          {error}
        </p>
      )}
      {status && (
        <p role="status" className={statusClassName}>
          {status}
        </p>
      )}
    </>
  );
}
