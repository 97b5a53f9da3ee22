// Mutation testing: `npm run mutate`. See docs/testing.md ("Mutation testing") for what is mutated, what is not
// yet and why, the last scores and the surviving mutants judged equivalent.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  // Only the unit tests in src/ (no chain, database or browser, no contract compilation): see the file.
  vitest: { configFile: 'vitest.stryker.config.ts' },
  plugins: ['@stryker-mutator/vitest-runner'],
  mutate: [
    'src/domain/**/*.ts',
    '!src/domain/**/*.test.ts',
    // Priced by the domain, and tested by fast unit tests (src/app/payments/convertAmount.test.ts).
    'src/app/payments/convertAmount.ts',
    'src/app/payments/quoteAmount.ts',
    // The chain watcher, status refreshes and settlement steps, tested over in-memory fakes of their ports
    // (test/fakes/): their own unit tests, beside them, run in milliseconds.
    'src/app/chain/watchChain.ts',
    'src/app/chain/transferRecords.ts',
    'src/app/chain/refreshPayments.ts',
    // The status the API answers, derived now from the ledger (src/app/payments/getPaymentStatus.test.ts).
    'src/app/payments/getPaymentStatus.ts',
    'src/app/settlement/applyMined.ts',
    'src/app/settlement/advanceInFlight.ts',
    'src/app/settlement/probeBatch.ts',
    'src/app/settlement/sendDue.ts',
    'src/app/settlement/settleOnce.ts',
    'src/app/settlement/notifyDelayedPayouts.ts',
    // The operator's listings and asks, and the token's controls: pure of any chain, tested over stubs of the one
    // port method each uses (issue 37).
    'src/app/settlement/listPayouts.ts',
    'src/app/settlement/listRelayers.ts',
    'src/app/settlement/sweepToken.ts',
    'src/app/settlement/retrySettlement.ts',
    'src/app/chain/tokenControls.ts',
    // The watcher's header reads and its rule for our own CCTP mints (blockReads.test.ts, crossChain.test.ts).
    'src/app/chain/blockReads.ts',
    'src/app/chain/crossChain.ts',
    // The bridge's steps, tested over in-memory fakes of their ports (test/fakes/memoryBridge.ts,
    // fakeBridgeChains.ts, bridgeWorld.ts), and its back-off and stall rules (setbacks.test.ts).
    'src/app/bridge/burnStep.ts',
    'src/app/bridge/fastBurnPlan.ts',
    'src/app/bridge/burnFee.ts',
    'src/app/bridge/stepTransaction.ts',
    'src/app/bridge/attestStep.ts',
    'src/app/bridge/reattestStep.ts',
    'src/app/bridge/mintStep.ts',
    'src/app/bridge/expiry.ts',
    'src/app/bridge/listCrossChain.ts',
    'src/app/bridge/setbacks.ts',
    // Where PAYLINK_FINALITY=confirmations:N becomes a finalized block (src/adapters/chain/chainReader.test.ts).
    'src/adapters/chain/chainReader.ts',
  ],
  coverageAnalysis: 'perTest',
  // The machines have two cores; the other one is for whoever else is working.
  concurrency: 1,
  ignoreStatic: true,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  tempDirName: 'reports/.stryker-tmp',
  cleanTempDir: true,
};
