/**
 * In `deskhand web` only: a button that asks the browser for permission to notify, so a request waiting while the tab
 * is in the background raises a notification (state/page-notify.ts). Shown until the person answered the browser.
 */
import { useState } from 'react';
import { pageNotificationsAvailable } from '../../state/page-notify';

export function AllowNotifications() {
  const [permission, setPermission] = useState(() => (pageNotificationsAvailable() ? Notification.permission : 'unavailable'));
  if (permission !== 'default') return null;
  return (
    <p className="muted small">
      <button type="button" className="btn small" onClick={() => void Notification.requestPermission().then(setPermission)}>
        Notify me in this browser
      </button>{' '}
      when a request waits while this tab is in the background.
    </p>
  );
}
