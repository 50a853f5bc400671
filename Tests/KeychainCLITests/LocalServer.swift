import Foundation
import Testing

/// A Python HTTP server of a test's own on 127.0.0.1, started in the background by a shell with its
/// output nowhere, so nothing of it holds the pipes a `Sandbox.run` reads to their end. The script
/// closes whatever descriptors it inherited, writes the port it got to `port` in its folder, and
/// ends itself after five minutes if `stop` is never called.
struct LocalServer {
    let folder: String
    let port: String

    /// Starts `script` (Python, given the folder and then `arguments`) and waits for its port.
    init(_ script: String, named name: String, arguments: [String], in sandbox: Sandbox) throws {
        folder = sandbox.folder + "/" + name
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try (Self.prologue + script).write(toFile: folder + "/server.py", atomically: true, encoding: .utf8)
        let started = sandbox.run(
            ["-c", "/usr/bin/python3 \"$0/server.py\" \"$0\" \"$@\" > /dev/null 2>&1 < /dev/null & echo $! > \"$0/pid\"", folder]
                + arguments, profile: nil, executable: "/bin/sh")
        #expect(started.status == 0, "\(started.stderr)")
        var waited = 0
        while (try? String(contentsOfFile: folder + "/port", encoding: .utf8)) == nil, waited < 200 {
            usleep(50_000)
            waited += 1
        }
        port = (try? String(contentsOfFile: folder + "/port", encoding: .utf8)) ?? ""
        #expect(!port.isEmpty, "the server \(name) did not start")
    }

    func stop() {
        let pid = (try? String(contentsOfFile: folder + "/pid", encoding: .utf8)).flatMap {
            Int32($0.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        // SIGKILL: the test runner's children inherit its signal mask, SIGTERM blocked included.
        if let pid { kill(pid, SIGKILL) }
    }

    /// What every server starts with: descriptors closed, a deadline, and `serve(server)`, which
    /// writes the port (atomically: the test polls for the file) and serves.
    private static let prologue = """
        import base64, hashlib, http.server, json, os, ssl, sys, threading
        os.closerange(3, 65536)
        threading.Timer(300, os._exit, [0]).start()
        folder = sys.argv[1]
        def serve(server):
            with open(os.path.join(folder, "port.tmp"), "w") as f: f.write(str(server.server_address[1]))
            os.rename(os.path.join(folder, "port.tmp"), os.path.join(folder, "port"))
            server.serve_forever()
        def basic(expected): return "Basic " + base64.b64encode(expected.encode()).decode()

        """

    /// Git's dumb HTTP over the folder `root`, behind basic authentication for `user:password`.
    static func git(root: String, credentials: String, in sandbox: Sandbox) throws -> LocalServer {
        try LocalServer(
            """
            root, expected = sys.argv[2], basic(sys.argv[3])
            class Handler(http.server.SimpleHTTPRequestHandler):
                def __init__(self, *a, **k): super().__init__(*a, directory=root, **k)
                def log_message(self, *a): pass
                def do_GET(self):
                    if self.headers.get("Authorization") != expected:
                        self.send_response(401); self.send_header("WWW-Authenticate", 'Basic realm="git"')
                        self.send_header("Content-Length", "0"); self.end_headers(); return
                    super().do_GET()
            serve(http.server.HTTPServer(("127.0.0.1", 0), Handler))
            """, named: "git-server", arguments: [root, credentials], in: sandbox)
    }

    /// A container registry as Docker's client sees one (the distribution API's `/v2/`, over TLS
    /// with a throwaway certificate, basic authentication for `user:password`) holding one image,
    /// `team/app:1.0`, whose manifest `docker manifest inspect` reads without a Docker engine.
    static func registry(credentials: String, in sandbox: Sandbox) throws -> LocalServer {
        let folder = sandbox.folder + "/registry"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let made = sandbox.run(
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
                "-keyout", folder + "/key.pem", "-out", folder + "/cert.pem",
            ], profile: nil, executable: "/usr/bin/openssl")
        #expect(made.status == 0, "\(made.stderr)")
        return try LocalServer(
            """
            expected = basic(sys.argv[2])
            config = b"{}"
            config_digest = "sha256:" + hashlib.sha256(config).hexdigest()
            manifest = json.dumps({"schemaVersion": 2, "mediaType": "application/vnd.docker.distribution.manifest.v2+json",
                "config": {"mediaType": "application/vnd.docker.container.image.v1+json", "digest": config_digest,
                "size": len(config)}, "layers": []}).encode()
            class Handler(http.server.BaseHTTPRequestHandler):
                def log_message(self, *a): pass
                def reply(self, code, body, kind, head):
                    self.send_response(code); self.send_header("Docker-Distribution-API-Version", "registry/2.0")
                    if code == 401: self.send_header("WWW-Authenticate", 'Basic realm="registry"')
                    if body is manifest: self.send_header("Docker-Content-Digest", "sha256:" + hashlib.sha256(manifest).hexdigest())
                    self.send_header("Content-Type", kind); self.send_header("Content-Length", str(len(body))); self.end_headers()
                    if not head: self.wfile.write(body)
                def answer(self, head):
                    if self.headers.get("Authorization") != expected: return self.reply(401, b"", "application/json", head)
                    if self.path == "/v2/": return self.reply(200, b"{}", "application/json", head)
                    if self.path == "/v2/team/app/manifests/1.0":
                        return self.reply(200, manifest, "application/vnd.docker.distribution.manifest.v2+json", head)
                    if self.path == "/v2/team/app/blobs/" + config_digest: return self.reply(200, config, "application/octet-stream", head)
                    self.reply(404, b'{"errors":[{"code":"MANIFEST_UNKNOWN"}]}', "application/json", head)
                def do_GET(self): self.answer(False)
                def do_HEAD(self): self.answer(True)
            server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(os.path.join(folder, "cert.pem"), os.path.join(folder, "key.pem"))
            server.socket = context.wrap_socket(server.socket, server_side=True)
            serve(server)
            """, named: "registry", arguments: [credentials], in: sandbox)
    }
}
