/**
 * The contract's part for paired devices (issue 51): Settings → Devices lists them (name, when paired, last used),
 * starts a pairing window on the running listener (`deskhand web --listen`; the QR code and the short code, shown
 * once) and revokes one (its credential stops working at once). The same files `deskhand devices` reads.
 */
import { z } from 'zod';

export const deviceViewSchema = z.strictObject({
  id: z.string(),
  name: z.string(),
  pairedAt: z.number(),
  lastUsedAt: z.number().nullable(),
});

export const deviceMethods = {
  listDevices: {
    params: z.strictObject({}),
    result: z.strictObject({
      devices: z.array(deviceViewSchema),
      /** The listener paired devices reach (https://ADDR:PORT/) and its certificate's SHA-256, or null when none runs. */
      listener: z.strictObject({ url: z.string(), fingerprint: z.string() }).nullable(),
    }),
  },
  /** Opens a pairing window (5 minutes, one device, closed after 5 wrong codes). Refused from a paired device. */
  startDevicePairing: {
    params: z.strictObject({ name: z.string().trim().max(40).optional() }),
    result: z.strictObject({ code: z.string(), link: z.string(), qrSvg: z.string(), fingerprint: z.string(), expiresAt: z.number() }),
  },
  revokeDevice: { params: z.strictObject({ id: z.string().min(1).max(80) }), result: z.strictObject({ revoked: deviceViewSchema }) },
  /**
   * The desktop app only: pair this computer with another machine's `deskhand web --listen` (`target`: its pairing
   * link, shown by Settings → Devices or `deskhand devices pair` there) or find the pairing made before (its https://
   * address), then restart attached to it. Refused elsewhere (the web page, a paired device, an editor).
   */
  driveMachine: { params: z.strictObject({ target: z.string().trim().min(1).max(2000) }), result: z.strictObject({ machine: z.string() }) },
  /** The desktop app driving another machine: restart on this computer's own runtime. */
  stopDriving: { params: z.strictObject({}), result: z.strictObject({}) },
};

export const DEVICE_METHOD_NAMES = ['listDevices', 'startDevicePairing', 'revokeDevice', 'driveMachine', 'stopDriving'] as const;
