/**
 * Compiles the Solidity sources (or reuses the fresh cache) and writes what the code is built from:
 * - the compiled-contracts cache (`src/adapters/chain/artifacts/contracts.json`), so that starting the service or
 *   the tests never waits for solc;
 * - the generated ABI module (`src/adapters/chain/contractAbis.ts`), which types every contract call.
 *
 *   node --import tsx scripts/compile-contracts.ts
 */
import { writeFile } from 'node:fs/promises';
import {
  abiModuleSource,
  CONTRACT_ABIS_MODULE_PATH,
  CONTRACTS_CACHE_PATH,
  loadContracts,
} from '../src/adapters/chain/contracts.ts';

const contracts = await loadContracts();
await writeFile(CONTRACT_ABIS_MODULE_PATH, abiModuleSource(contracts));
const sizes = Object.entries(contracts).map(
  ([name, artifact]) => `${name} ${(artifact.deployedBytecode.length - 2) / 2} B`,
);
process.stdout.write(`contracts: ${CONTRACTS_CACHE_PATH} (${sizes.join(', ')})\n`);
process.stdout.write(`ABIs: ${CONTRACT_ABIS_MODULE_PATH}\n`);
