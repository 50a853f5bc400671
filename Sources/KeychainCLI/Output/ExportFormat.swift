/// What `export` writes: items as JSON or JSON lines (for import), or variables as dotenv, shell
/// assignments or GitHub's environment file.
enum ExportFormat: String { case json, jsonl, dotenv, shell, githubEnv = "github-env" }
