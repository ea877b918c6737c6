export async function peersServeCommand(_args: string[]): Promise<number> { return 1; }
