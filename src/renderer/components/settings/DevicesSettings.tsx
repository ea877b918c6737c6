/**
 * Settings → Devices (issue 51): the devices paired with this Deskhand (a phone, another Deskhand), with when each was
 * paired and last used, and Revoke (its credential stops working at once). "Pair a device" opens a pairing window on
 * the listener `deskhand web --listen ADDR` runs: a QR code (the pairing page, the code and the certificate's SHA-256)
 * and the short code to type on the device. In the desktop app, "Drive another machine" takes the pairing link of a
 * bigger machine's `deskhand web --listen` (or its https:// address once paired) and restarts attached to it.
 */
import { useEffect, useState } from 'react';
import type { MethodResult } from '../../../shared/contract';
import { api, errorText } from '../../api/client';

type Listing = MethodResult<'listDevices'>;
type Pairing = MethodResult<'startDevicePairing'>;

const when = (t: number | null) => (t === null ? 'never' : new Date(t).toLocaleString());

export function DevicesSettings() {
  const [listing, setListing] = useState<Listing | null>(null);
  const [pairing, setPairing] = useState<Pairing | null>(null);
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [target, setTarget] = useState('');
  const [driving, setDriving] = useState(false);
  /** Only the desktop app (its bridge) restarts attached to another machine. */
  const desktop = typeof window !== 'undefined' && !!window.deskhand;

  const load = () =>
    api()
      .listDevices({})
      .then(setListing)
      .catch((err: unknown) => setError(errorText(err)));
  useEffect(() => {
    void load();
  }, []);
  // While a pairing window is open, the list is read again so the new device shows up (and the QR goes away).
  useEffect(() => {
    if (!pairing) return;
    const before = listing?.devices.length ?? 0;
    const t = setInterval(() => {
      void api()
        .listDevices({})
        .then((next) => {
          setListing(next);
          if (next.devices.length > before || Date.now() > pairing.expiresAt) {
            if (next.devices.length > before) setStatus(`Paired ${next.devices.at(-1)!.name}.`);
            setPairing(null);
          }
        })
        .catch(() => undefined);
    }, 1500);
    return () => clearInterval(t);
  }, [pairing, listing?.devices.length]);

  async function pair() {
    setError(null);
    setStatus(null);
    try {
      setPairing(await api().startDevicePairing({ ...(name.trim() ? { name: name.trim() } : {}) }));
    } catch (err) {
      setError(errorText(err));
    }
  }

  async function drive() {
    setError(null);
    setStatus(null);
    setDriving(true);
    try {
      const { machine } = await api().driveMachine({ target: target.trim() });
      setStatus(`Paired with ${machine}: Deskhand restarts driving it.`);
    } catch (err) {
      setError(errorText(err));
      setDriving(false);
    }
  }

  async function revoke(id: string, label: string) {
    setError(null);
    try {
      await api().revokeDevice({ id });
      setStatus(`Revoked ${label}: it can no longer reach Deskhand.`);
      await load();
    } catch (err) {
      setError(errorText(err));
    }
  }

  return (
    <section className="card" aria-labelledby="devices-title">
      <h2 id="devices-title" className="card-title">
        Devices
      </h2>
      <p className="muted small">
        A phone or another computer paired with this Deskhand sees the same conversations and answers approvals, questions and secrets, with its own credential (never this window’s address).
        Pairing needs <code>deskhand web --listen ADDR</code> running on this data folder (off unless started; TLS with its own certificate).
      </p>
      {listing?.listener ? (
        <p className="small">
          Listening at <code>{listing.listener.url}</code> · certificate SHA-256 <code className="fingerprint">{listing.listener.fingerprint}</code>
        </p>
      ) : (
        listing && <p className="muted small" role="note">No paired-device listener runs now.</p>
      )}
      <div className="row">
        <label>
          Name{' '}
          <input value={name} onChange={(e) => setName(e.target.value)} placeholder="my phone" maxLength={40} aria-label="Device name" />
        </label>
        <button type="button" className="btn primary" onClick={() => void pair()}>
          Pair a device
        </button>
      </div>
      {pairing && (
        <div className="pairing" role="group" aria-label="Pairing">
          <img className="pairing-qr" alt="Pairing QR code" width={220} height={220} src={`data:image/svg+xml;utf8,${encodeURIComponent(pairing.qrSvg)}`} />
          <p>
            Scan it with the device, or open <code>{pairing.link.split('#')[0]}</code> there and type <strong className="pairing-code">{pairing.code}</strong>. Open until{' '}
            {new Date(pairing.expiresAt).toLocaleTimeString()}; five wrong codes close it.
          </p>
        </div>
      )}
      {desktop && (
        <form
          className="drive-machine"
          aria-label="Drive another machine"
          onSubmit={(e) => {
            e.preventDefault();
            if (target.trim() && !driving) void drive();
          }}
        >
          <h3 className="small">Drive another machine</h3>
          <p className="muted small">
            Work on a bigger machine from this window: on it, run <code>deskhand web --listen ADDR</code> and <code>deskhand devices pair</code> (or Pair a device in its Settings), then paste the link here. Its conversations, files, sandbox and
            schedules are used; nothing runs here until you disconnect.
          </p>
          <div className="row">
            <input value={target} onChange={(e) => setTarget(e.target.value)} placeholder="https://192.168.1.20:8443/pair#code=…" aria-label="Pairing link or address" maxLength={2000} />
            <button type="submit" className="btn" disabled={!target.trim() || driving}>
              Connect
            </button>
          </div>
        </form>
      )}
      {error && <p role="alert">{error}</p>}
      {status && <p role="status">{status}</p>}
      {listing?.devices.length === 0 && <p className="muted">No device is paired.</p>}
      {!!listing?.devices.length && (
        <ul className="grant-list" aria-label="Paired devices">
          {listing.devices.map((d) => (
            <li key={d.id} aria-label={`Device ${d.name}`}>
              <div>
                <strong>{d.name}</strong>
                <div className="muted small">
                  paired {when(d.pairedAt)} · last used {when(d.lastUsedAt)}
                </div>
              </div>
              <button type="button" className="btn" aria-label={`Revoke ${d.name}`} onClick={() => void revoke(d.id, d.name)}>
                Revoke
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
