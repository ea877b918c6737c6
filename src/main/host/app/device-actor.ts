/**
 * Which paired device a contract call comes from, while the call runs (issue 51): the device listener
 * (host/web/device-host.ts) runs each of a device's calls inside `asDevice`, and what records an answerer (approvals'
 * `answeredBy`) names the device instead of the host's own UI.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export interface DeviceActor {
  id: string;
  name: string;
}

const actor = new AsyncLocalStorage<DeviceActor>();

export function asDevice<T>(device: DeviceActor, fn: () => T): T {
  return actor.run({ id: device.id, name: device.name }, fn);
}

export function currentDevice(): DeviceActor | undefined {
  return actor.getStore();
}

/** Who answers: the paired device when the call came from one, else `fallback` (the host's own UI). */
export function answererOf(fallback: string): string {
  const d = actor.getStore();
  return d ? `the paired device "${d.name}"` : fallback;
}
