/**
 * The contract's device methods (a handler group, issue 51): Settings → Devices over the data folder's device registry
 * (services/devices), the same files `deskhand devices` changes. Pairing needs the listener of `deskhand web --listen`
 * on this data folder; a paired device may not open a pairing window (a stolen phone cannot enrol another).
 */
import QRCode from 'qrcode';
import { DeskhandError } from '../../../shared/errors';
import { DeviceRegistry, pairingLink } from '../../services/devices/index';
import { currentDevice } from './device-actor';
import type { HandlerGroup } from './handler-groups';
import type { DEVICE_METHOD_NAMES } from '../../../shared/contract/devices';

type Methods = (typeof DEVICE_METHOD_NAMES)[number];

/**
 * `drive`: the desktop app's way to another machine (desktop-app.ts: pair or find the pairing, then restart attached
 * to it); absent in every other host. Stopping is answered by the desktop app's window wiring while it drives one
 * (ipc.ts), so here, on this machine's own runtime, there is nothing to stop.
 */
export const deviceGroup =
  (drive?: (target: string) => Promise<{ machine: string }>): HandlerGroup<Methods> =>
  ({ dataDir }) => {
    const registry = new DeviceRegistry(dataDir);
    return {
      async driveMachine(p) {
        if (currentDevice()) throw new DeskhandError('denied', 'A paired device cannot make this machine drive another.');
        if (!drive) throw new DeskhandError('usage', 'Only the desktop app drives another machine. In a terminal: `deskhand web --remote LINK` (the pairing link from that machine).');
        return drive(p.target);
      },
      async stopDriving() {
        throw new DeskhandError('usage', 'This window is not driving another machine.');
      },
      async listDevices() {
        const l = registry.listener();
        return { devices: registry.list(), listener: l ? { url: l.url, fingerprint: l.fingerprint } : null };
      },
      async startDevicePairing(p) {
        if (currentDevice()) throw new DeskhandError('denied', 'A paired device cannot pair another: start pairing on the desktop.');
        const listener = registry.listener();
        if (!listener) throw new DeskhandError('usage', 'No paired-device listener is running: start `deskhand web --listen ADDR` (e.g. --listen 192.168.1.20) on this data folder, then pair again.');
        const { code, expiresAt } = registry.openPairing({ name: p.name || null });
        const link = pairingLink(listener.url, code, listener.fingerprint);
        const qrSvg = await QRCode.toString(link, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
        return { code, link, qrSvg, fingerprint: listener.fingerprint, expiresAt };
      },
      async revokeDevice(p) {
        return { revoked: registry.revoke(p.id) };
      },
    };
  };
