import { loadContracts } from '../../src/adapters/chain/contracts.ts';

/** Compiles the Solidity sources once (or reuses the fresh cache) before any test file needs the artifacts. */
export default async function setup(): Promise<void> {
  await loadContracts();
}
