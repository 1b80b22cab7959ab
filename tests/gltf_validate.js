// Validates glTF files with the Khronos glTF validator (npm gltf-validator, found
// through NODE_PATH); prints one JSON line per file: errors, warnings, messages.
const fs = require('fs'), path = require('path');
const validator = require(process.env.GLTF_VALIDATOR_MODULE || 'gltf-validator');
(async () => {
  for (const f of process.argv.slice(2)) {
    try {
      const r = await validator.validateBytes(new Uint8Array(fs.readFileSync(f)), {
        uri: f, maxIssues: 50,
        externalResourceFunction: (uri) => new Promise((ok, no) => {
          fs.readFile(path.resolve(path.dirname(f), decodeURIComponent(uri)), (e, d) => e ? no(e.toString()) : ok(new Uint8Array(d)));
        })});
      console.log(JSON.stringify({file: f, errors: r.issues.numErrors, warnings: r.issues.numWarnings,
        messages: r.issues.messages.filter(m => m.severity <= 1).slice(0, 5).map(m => m.code + ' ' + m.pointer + ' ' + m.message)}));
    } catch (e) { console.log(JSON.stringify({file: f, errors: -1, messages: [String(e)]})); }
  }
})();
