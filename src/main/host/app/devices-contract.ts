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

type Methods = 'listDevices' | 'startDevicePairing' | 'revokeDevice';

export const deviceGroup: HandlerGroup<Methods> = ({ dataDir }) => {
  const registry = new DeviceRegistry(dataDir);
  return {
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
