// Conformance suite: `bun --bun cucumber-js` (npm run test:features). TARGET=path/to/target.json runs it against
// another implementation; without TARGET the suite starts a reference devnet of its own.
export default {
  import: ["features/support/**/*.ts", "features/steps/**/*.ts"],
  format: [
    "progress",
    "summary",
    "junit:reports/cucumber-junit.xml",
    "html:reports/cucumber-report.html",
    "message:reports/cucumber-messages.ndjson",
  ],
  formatOptions: { junit: { suiteName: "mev-commit conformance" } },
  publishQuiet: true,
  strict: true,
  // Everything the suite started is stopped in AfterAll; do not wait on timers that libraries leave behind.
  forceExit: true,
};
