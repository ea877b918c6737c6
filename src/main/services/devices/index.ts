/** Paired devices (issue 51): the registry of devices and pairing windows, and the listener's TLS certificate. */
export { DeviceRegistry, MAX_WRONG_CODES, PAIRING_TTL_MS, checkDeviceName, normalizeCode, pairingLink, type DeviceRecord, type DeviceView, type ListenerInfo, type PairOutcome, type PairingWindow } from './device-registry';
export { ensureDeviceCertificate, fingerprintOf, makeCertificate, type DeviceCertificate } from './certificate';
