import { readdirSync, readFileSync } from 'node:fs';

/** Every living process under `root` (children, grandchildren …), from Linux's /proc. */
export function descendantsOf(root: number): { pid: number; command: string }[] {
  const parents = new Map<number, number[]>();
  const commands = new Map<number, string>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // "pid (comm) state ppid …": comm may hold spaces and parentheses, so split after its last ')'.
      const close = stat.lastIndexOf(')');
      const [state, ppid] = stat.slice(close + 2).split(' ');
      if (state === 'Z') continue;
      const pid = Number(entry);
      commands.set(pid, stat.slice(stat.indexOf('(') + 1, close));
      parents.set(Number(ppid), [...(parents.get(Number(ppid)) ?? []), pid]);
    } catch {
      // The process ended while we read.
    }
  }
  const found: { pid: number; command: string }[] = [];
  const queue = [...(parents.get(root) ?? [])];
  while (queue.length > 0) {
    const pid = queue.shift() as number;
    found.push({ pid, command: commands.get(pid) ?? '' });
    queue.push(...(parents.get(pid) ?? []));
  }
  return found;
}

export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}
