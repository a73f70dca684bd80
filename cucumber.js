// Plain cucumber-js over the conformance suite (`bun --bun cucumber-js`). The suite's command,
// features/cli/conformance.ts (`npm run test:features`, the package bin mev-commit-conformance), is the usual way:
// it adds levels, the @may-crash pass, the level summary and the JSON result. TARGET=path/to/target.json runs
// either against another implementation; without TARGET the suite starts a reference devnet of its own.
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
  strict: true,
  // Everything the suite started is stopped in AfterAll; do not wait on timers that libraries leave behind.
  forceExit: true,
};
