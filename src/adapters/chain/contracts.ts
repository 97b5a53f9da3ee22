/**
 * Compiles the Solidity sources in `src/contracts/` with solc-js and caches the artifacts on disk.
 *
 * The cache records a hash of everything that went into the compilation (compiler version, settings, and the
 * content of every source unit, OpenZeppelin imports included), so an edited contract or an upgraded
 * dependency recompiles instead of silently deploying stale bytecode.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Abi, Hex } from 'viem';

export type ContractName =
  | 'PaymentForwarder'
  | 'ForwarderFactory'
  | 'PaymentForwarderV2'
  | 'ForwarderFactoryV2'
  | 'PaymentForwarderV3'
  | 'ForwarderFactoryV3'
  | 'TestUSDC'
  | 'TestPackedUSDC'
  | 'TestTokenProxy'
  | 'TestMessageTransmitterV2'
  | 'TestTokenMessengerV2'
  | 'SubscriptionCharger';

export type ContractArtifact = { abi: Abi; bytecode: Hex; deployedBytecode: Hex };

export type CompiledContracts = Record<ContractName, ContractArtifact>;

export const CONTRACTS_CACHE_PATH = fileURLToPath(new URL('./artifacts/contracts.json', import.meta.url));

const require = createRequire(import.meta.url);
const contractsDir = new URL('../../contracts/', import.meta.url);
const ownUnitPrefix = 'contracts/';
const cacheFormat = 2;

/**
 * Five compilations, in the order the ABI module lists them. Version 1 of the forwarder and factory is deployed
 * on chain and must compile to the very bytecode that was released: its sources and settings are frozen
 * (test/contracts/contracts.test.ts checks the hash). Everything newer targets Cancun: version 2 guards `flush` with a
 * transient-storage lock (EIP-1153), which Polygon PoS and Amoy have had since the Napoli upgrade. Version 2 is
 * live too, so its settings stay as released. Version 3 is compiled for what it runs, not for its size: the
 * IR pipeline with the optimizer tuned for many runs (about 2k gas less per payment in a settlement batch, decision
 * 0038). Splitting the groups changes no other contract's bytecode (solc's output for a contract depends on its
 * own sources and the settings, not on what else is compiled beside it).
 */
const compilations = [
  { evmVersion: 'shanghai', contracts: ['PaymentForwarder', 'ForwarderFactory'] },
  { evmVersion: 'cancun', contracts: ['PaymentForwarderV2', 'ForwarderFactoryV2'] },
  {
    evmVersion: 'cancun',
    contracts: ['PaymentForwarderV3', 'ForwarderFactoryV3'],
    optimizeForRuns: 1_000_000,
  },
  // Pull renewal's charger (decision 0061): a charge per customer per period, compiled as version 3 is, for gas.
  { evmVersion: 'cancun', contracts: ['SubscriptionCharger'], optimizeForRuns: 1_000_000 },
  {
    evmVersion: 'cancun',
    contracts: [
      'TestUSDC',
      'TestPackedUSDC',
      'TestTokenProxy',
      'TestMessageTransmitterV2',
      'TestTokenMessengerV2',
    ],
  },
] as const satisfies readonly {
  evmVersion: string;
  contracts: readonly ContractName[];
  optimizeForRuns?: number;
}[];

const contractNames: readonly ContractName[] = compilations.flatMap((c) => c.contracts);

function settingsOf(compilation: (typeof compilations)[number]) {
  return {
    evmVersion: compilation.evmVersion,
    ...('optimizeForRuns' in compilation
      ? { viaIR: true, optimizer: { enabled: true, runs: compilation.optimizeForRuns } }
      : { optimizer: { enabled: true, runs: 200 } }),
    outputSelection: Object.fromEntries(
      compilation.contracts.map((name) => [
        `${ownUnitPrefix}${name}.sol`,
        { [name]: ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] },
      ]),
    ),
  };
}

type SolcOutput = {
  errors?: { severity: 'error' | 'warning' | 'info'; formattedMessage: string }[];
  contracts?: Record<
    string,
    Record<string, { abi: Abi; evm: { bytecode: { object: string }; deployedBytecode: { object: string } } }>
  >;
};

type CacheFile = {
  format: number;
  inputHash: string;
  solcVersion: string;
  sourceUnits: string[];
  contracts: CompiledContracts;
};

let loaded: Promise<CompiledContracts> | undefined;

/** The compiled contracts, from the on-disk cache when it matches the sources, else compiled and cached. */
export function loadContracts(): Promise<CompiledContracts> {
  loaded ??= loadOrCompile().catch((error: unknown) => {
    loaded = undefined;
    throw error;
  });
  return loaded;
}

async function loadOrCompile(): Promise<CompiledContracts> {
  if (!existsSync(contractsDir)) return readBuiltArtifacts();
  const cached = await readCache();
  if (cached !== undefined) return cached;
  const compiled = await compile();
  await writeCache(compiled);
  return compiled.contracts;
}

/**
 * A production build (dist/) ships the artifacts `npm run build` compiled, and neither the Solidity sources nor
 * the compiler: they are taken as built (test/repository/productionBuild.test.ts checks them against the sources).
 */
async function readBuiltArtifacts(): Promise<CompiledContracts> {
  try {
    return (JSON.parse(await readFile(CONTRACTS_CACHE_PATH, 'utf8')) as CacheFile).contracts;
  } catch {
    throw new Error(
      `no compiled contracts at ${CONTRACTS_CACHE_PATH}: this build is incomplete (npm run build)`,
    );
  }
}

async function compile(): Promise<CacheFile> {
  // Imported lazily: loading the compiler's wasm takes seconds, and a warm cache never needs it.
  const { default: solc } = await import('solc');
  const units: Record<string, string> = {};
  const findImports = (unit: string): { contents: string } | { error: string } => {
    try {
      const contents = readUnit(unit);
      units[unit] = contents;
      return { contents };
    } catch (error) {
      return { error: error instanceof Error ? error.message : String(error) };
    }
  };
  const contracts = {} as CompiledContracts;
  for (const compilation of compilations) {
    const sources: Record<string, { content: string }> = {};
    for (const name of compilation.contracts) {
      const unit = `${ownUnitPrefix}${name}.sol`;
      units[unit] = readUnit(unit);
      sources[unit] = { content: units[unit] };
    }
    const input = { language: 'Solidity', sources, settings: settingsOf(compilation) };
    const output = JSON.parse(solc.compile(JSON.stringify(input), { import: findImports })) as SolcOutput;
    const errors = (output.errors ?? []).filter((diagnostic) => diagnostic.severity === 'error');
    if (errors.length > 0) {
      throw new Error(`Solidity compilation failed:\n${errors.map((e) => e.formattedMessage).join('\n')}`);
    }
    for (const name of compilation.contracts) {
      const contract = output.contracts?.[`${ownUnitPrefix}${name}.sol`]?.[name];
      if (contract === undefined) throw new Error(`solc produced no output for ${name}`);
      contracts[name] = {
        abi: contract.abi,
        bytecode: `0x${contract.evm.bytecode.object}`,
        deployedBytecode: `0x${contract.evm.deployedBytecode.object}`,
      };
    }
  }
  return {
    format: cacheFormat,
    inputHash: hashInput(units),
    solcVersion: solc.version() as string,
    sourceUnits: Object.keys(units).sort(),
    contracts,
  };
}

async function readCache(): Promise<CompiledContracts | undefined> {
  let cache: CacheFile;
  try {
    cache = JSON.parse(await readFile(CONTRACTS_CACHE_PATH, 'utf8')) as CacheFile;
  } catch {
    return undefined;
  }
  if (cache.format !== cacheFormat || !Array.isArray(cache.sourceUnits)) return undefined;
  const units: Record<string, string> = {};
  try {
    for (const unit of cache.sourceUnits) units[unit] = readUnit(unit);
  } catch {
    return undefined;
  }
  // A cache written before a contract was added does not list it, and the hash alone would not notice.
  if (contractNames.some((name) => units[`${ownUnitPrefix}${name}.sol`] === undefined)) return undefined;
  return hashInput(units) === cache.inputHash ? cache.contracts : undefined;
}

async function writeCache(cache: CacheFile): Promise<void> {
  await mkdir(dirname(CONTRACTS_CACHE_PATH), { recursive: true });
  // Write then rename: test workers may compile concurrently, and a reader must never see half a file.
  const temporary = `${CONTRACTS_CACHE_PATH}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(cache, null, 2)}\n`);
  await rename(temporary, CONTRACTS_CACHE_PATH);
}

function readUnit(unit: string): string {
  if (unit.startsWith(ownUnitPrefix)) {
    return readFileSync(new URL(unit.slice(ownUnitPrefix.length), contractsDir), 'utf8');
  }
  if (!unit.startsWith('@openzeppelin/')) throw new Error(`unexpected Solidity import ${unit}`);
  return readFileSync(require.resolve(unit), 'utf8');
}

function hashInput(units: Record<string, string>): string {
  // The npm package version pins the compiler build; reading it avoids loading the compiler to check a cache.
  const { version } = require('solc/package.json') as { version: string };
  const hash = createHash('sha256');
  hash.update(JSON.stringify({ format: cacheFormat, solc: version, settings: compilations.map(settingsOf) }));
  for (const unit of Object.keys(units).sort()) {
    hash.update(`\0${unit}\0${units[unit]}`);
  }
  return hash.digest('hex');
}

/** The TypeScript name of each contract's ABI in the generated module (`contractAbis.ts`). */
const abiExportNames: Readonly<Record<ContractName, string>> = {
  PaymentForwarder: 'paymentForwarderV1Abi',
  ForwarderFactory: 'forwarderFactoryV1Abi',
  PaymentForwarderV2: 'paymentForwarderV2Abi',
  ForwarderFactoryV2: 'forwarderFactoryV2Abi',
  PaymentForwarderV3: 'paymentForwarderV3Abi',
  ForwarderFactoryV3: 'forwarderFactoryV3Abi',
  TestUSDC: 'testUsdcAbi',
  TestPackedUSDC: 'testPackedUsdcAbi',
  TestTokenProxy: 'testTokenProxyAbi',
  TestMessageTransmitterV2: 'testMessageTransmitterV2Abi',
  TestTokenMessengerV2: 'testTokenMessengerV2Abi',
  SubscriptionCharger: 'subscriptionChargerAbi',
};

export const CONTRACT_ABIS_MODULE_PATH = fileURLToPath(new URL('./contractAbis.ts', import.meta.url));

/**
 * The source of `contractAbis.ts`: every compiled ABI as a `const` literal, so that viem types calls, results and
 * events from what the compiler produced rather than from ABIs written by hand. Written by
 * `scripts/compile-contracts.ts`; test/contracts/contracts.test.ts fails when the committed module differs.
 */
export function abiModuleSource(contracts: CompiledContracts): string {
  const lines = [
    '// Generated by scripts/compile-contracts.ts (npm run build) from the compiled contracts: do not edit.',
    '// test/contracts/contracts.test.ts fails when this file differs from what the Solidity sources compile to.',
  ];
  for (const name of contractNames) {
    lines.push(
      '',
      `export const ${abiExportNames[name]} = ${JSON.stringify(contracts[name].abi, null, 2)} as const;`,
    );
  }
  return `${lines.join('\n')}\n`;
}
