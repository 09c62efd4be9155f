//! Throwaway database servers for the tests: each started fresh on a loopback port with its
//! data under `target/services/`, loaded with the demo databases by `nl2sql copy`, and
//! stopped when its handle drops, so a failing step stops it too. PostgreSQL and
//! MariaDB have TLS on (a certificate a throwaway authority signed for 127.0.0.1); Spark
//! Connect runs in local mode from PyPI's pyspark. A server left behind by a run that was
//! killed is stopped by the next run before it starts its own.

use crate::run::{Failure, Project};
use std::fs;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The demo databases every server is loaded with.
const DEMO: [&str; 3] = ["chinook", "support", "webanalytics"];

/// The environment variables that tell the tests where each server is: a base address, to
/// which a test adds `/chinook` and the like.
pub const POSTGRES_URL_VAR: &str = "NL2SQL_POSTGRES_URL";
pub const MARIADB_URL_VAR: &str = "NL2SQL_MARIADB_URL";
pub const SPARK_URL_VAR: &str = "NL2SQL_SPARK_URL";
/// The certificate authority (PEM) that signed both servers' certificates.
pub const TLS_CA_VAR: &str = "NL2SQL_TLS_CA";

/// Every test server, started together; each stops when this drops.
pub struct Servers {
    pub postgres: Postgres,
    pub mariadb: MariaDb,
    pub spark: Spark,
    tls: Certificates,
}

impl Servers {
    /// Starts them all, loaded with the demo databases.
    pub fn start(project: &Project) -> Result<Servers, Failure> {
        let services = project.root.join("target").join("services");
        let tls = Certificates::make(&services.join("tls"))?;
        Ok(Servers {
            postgres: Postgres::start(project, &tls)?,
            mariadb: MariaDb::start(project, &tls)?,
            spark: Spark::start(project)?,
            tls,
        })
    }

    /// The variables the tests read, with their values.
    pub fn variables(&self) -> [(&'static str, String); 4] {
        [
            (POSTGRES_URL_VAR, self.postgres.url()),
            (MARIADB_URL_VAR, self.mariadb.url()),
            (SPARK_URL_VAR, self.spark.url()),
            (TLS_CA_VAR, self.tls.ca.to_string_lossy().into_owned()),
        ]
    }
}

/// A throwaway certificate authority and a server certificate it signed for 127.0.0.1 and
/// localhost, as PEM files.
pub struct Certificates {
    /// The authority's certificate, which a client is told to trust.
    pub ca: PathBuf,
    /// The server's certificate.
    pub cert: PathBuf,
    /// The server's private key (readable by its owner only, as PostgreSQL insists).
    pub key: PathBuf,
}

impl Certificates {
    /// Makes them afresh under `dir`.
    pub fn make(dir: &Path) -> Result<Certificates, Failure> {
        use rcgen::{
            BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair, KeyUsagePurpose,
        };
        let fail = |e: rcgen::Error| Failure(format!("making the test certificates: {e}"));
        let _ = fs::remove_dir_all(dir);
        fs::create_dir_all(dir)
            .map_err(|e| Failure(format!("cannot create {}: {e}", dir.display())))?;
        let ca_key = KeyPair::generate().map_err(fail)?;
        let mut ca = CertificateParams::new(Vec::<String>::new()).map_err(fail)?;
        ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca.distinguished_name
            .push(DnType::CommonName, "nl2sql test authority");
        ca.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        let ca_cert = ca.self_signed(&ca_key).map_err(fail)?;
        let issuer = Issuer::new(ca, ca_key);
        let key = KeyPair::generate().map_err(fail)?;
        let mut server = CertificateParams::new(vec!["127.0.0.1".to_string(), "localhost".into()])
            .map_err(fail)?;
        server
            .distinguished_name
            .push(DnType::CommonName, "127.0.0.1");
        let cert = server.signed_by(&key, &issuer).map_err(fail)?;
        let paths = Certificates {
            ca: dir.join("ca.pem"),
            cert: dir.join("server.pem"),
            key: dir.join("server.key"),
        };
        let write = |path: &Path, text: String| {
            fs::write(path, text)
                .map_err(|e| Failure(format!("cannot write {}: {e}", path.display())))
        };
        write(&paths.ca, ca_cert.pem())?;
        write(&paths.cert, cert.pem())?;
        write(&paths.key, key.serialize_pem())?;
        private(&paths.key)?;
        Ok(paths)
    }
}

/// Makes `path` readable by its owner only.
fn private(path: &Path) -> Result<(), Failure> {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(path, fs::Permissions::from_mode(0o600))
        .map_err(|e| Failure(format!("cannot restrict {}: {e}", path.display())))
}

/// A running PostgreSQL, stopped on drop.
pub struct Postgres {
    bin: PathBuf,
    data: PathBuf,
    as_postgres_user: bool,
    port: u16,
}

impl Postgres {
    /// Creates a cluster under `target/services/postgres`, starts it with TLS on and loads
    /// the demo databases.
    pub fn start(project: &Project, tls: &Certificates) -> Result<Postgres, Failure> {
        let started = Instant::now();
        let bin = postgres_bin()?;
        let root = project
            .root
            .join("target")
            .join("services")
            .join("postgres");
        let data = root.join("data");
        // A cluster left running by a killed run would hold the folder and its port.
        if data.join("postmaster.pid").exists() {
            let _ = pg_ctl_stop(&bin, &data, is_root());
        }
        if root.exists() {
            fs::remove_dir_all(&root)
                .map_err(|e| Failure(format!("cannot clear {}: {e}", root.display())))?;
        }
        fs::create_dir_all(&root)
            .map_err(|e| Failure(format!("cannot create {}: {e}", root.display())))?;
        // Its own copy of the key: the server must own it.
        let key = root.join("server.key");
        fs::copy(&tls.key, &key).map_err(|e| Failure(format!("cannot copy the key: {e}")))?;
        private(&key)?;
        // PostgreSQL refuses to run as root: then its own `postgres` user runs it.
        let as_postgres_user = is_root();
        if as_postgres_user {
            run(
                Command::new("chown").args(["-R", "postgres"]).arg(&root),
                "chown",
            )?;
        }
        let port = free_port()?;
        let server = Postgres {
            bin,
            data,
            as_postgres_user,
            port,
        };
        server.ctl(
            "initdb",
            &[
                "-D",
                &server.data.to_string_lossy(),
                "-U",
                "nl2sql",
                "--auth=trust",
                "--locale=C",
                "-E",
                "UTF8",
                "--no-sync",
            ],
        )?;
        let options = format!(
            "-c listen_addresses=127.0.0.1 -p {port} -k {} -c fsync=off \
             -c synchronous_commit=off -c full_page_writes=off -c ssl=on \
             -c ssl_cert_file={} -c ssl_key_file={}",
            root.display(),
            tls.cert.display(),
            key.display()
        );
        server.ctl(
            "pg_ctl",
            &[
                "-D",
                &server.data.to_string_lossy(),
                "-l",
                &root.join("server.log").to_string_lossy(),
                "-w",
                "-o",
                &options,
                "start",
            ],
        )?;
        load_demo(project, &server.url(), "PostgreSQL")?;
        println!(
            "    PostgreSQL on 127.0.0.1:{port}, demo databases loaded ({:.1} s)",
            started.elapsed().as_secs_f64()
        );
        Ok(server)
    }

    /// The base address (no database).
    pub fn url(&self) -> String {
        format!("postgres://nl2sql@127.0.0.1:{}", self.port)
    }

    fn ctl(&self, tool: &str, args: &[&str]) -> Result<(), Failure> {
        let mut command = postgres_tool(&self.bin, tool, self.as_postgres_user);
        command.args(args);
        run(&mut command, tool)
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        if let Err(e) = pg_ctl_stop(&self.bin, &self.data, self.as_postgres_user) {
            eprintln!("    could not stop PostgreSQL: {}", e.0);
        }
    }
}

/// A running MariaDB, stopped on drop.
pub struct MariaDb {
    child: Child,
    port: u16,
}

impl MariaDb {
    /// Creates a data directory under `target/services/mariadb`, starts the server on it
    /// (as the user running the tests, root included: MariaDB allows it when told), adds
    /// the tests' user and loads the demo databases.
    pub fn start(project: &Project, tls: &Certificates) -> Result<MariaDb, Failure> {
        let started = Instant::now();
        let root = project.root.join("target").join("services").join("mariadb");
        stop_leftover(&root.join("mariadbd.pid"));
        if root.exists() {
            fs::remove_dir_all(&root)
                .map_err(|e| Failure(format!("cannot clear {}: {e}", root.display())))?;
        }
        fs::create_dir_all(&root)
            .map_err(|e| Failure(format!("cannot create {}: {e}", root.display())))?;
        let data = root.join("data");
        let user = current_user();
        run(
            Command::new(mariadb_program("mariadb-install-db")?)
                .arg(format!("--datadir={}", data.display()))
                .arg(format!("--user={user}"))
                .args(["--auth-root-authentication-method=normal", "--skip-test-db"]),
            "mariadb-install-db",
        )?;
        let port = free_port()?;
        let log = fs::File::create(root.join("server.log"))
            .map_err(|e| Failure(format!("cannot create MariaDB's log: {e}")))?;
        let child = Command::new(mariadb_program("mariadbd")?)
            .arg("--no-defaults")
            .arg(format!("--datadir={}", data.display()))
            .arg(format!("--socket={}", root.join("mariadbd.sock").display()))
            .arg(format!(
                "--pid-file={}",
                root.join("mariadbd.pid").display()
            ))
            .arg(format!("--port={port}"))
            .arg("--bind-address=127.0.0.1")
            .arg(format!("--user={user}"))
            .args(["--skip-log-bin", "--innodb-flush-log-at-trx-commit=0"])
            .arg(format!("--ssl-cert={}", tls.cert.display()))
            .arg(format!("--ssl-key={}", tls.key.display()))
            .arg(format!("--ssl-ca={}", tls.ca.display()))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .map_err(|e| Failure(format!("mariadbd could not start: {e}")))?;
        let mut server = MariaDb { child, port };
        server.wait_ready(&root)?;
        load_demo(project, &server.url(), "MariaDB")?;
        println!(
            "    MariaDB on 127.0.0.1:{port}, demo databases loaded ({:.1} s)",
            started.elapsed().as_secs_f64()
        );
        Ok(server)
    }

    /// The base address (no database).
    pub fn url(&self) -> String {
        format!("mysql://nl2sql@127.0.0.1:{}", self.port)
    }

    /// Waits for the server to take connections, then adds the tests' user through its
    /// socket (root reaches it there without a password).
    fn wait_ready(&mut self, root: &Path) -> Result<(), Failure> {
        let client = mariadb_program("mariadb")?;
        let socket = root.join("mariadbd.sock");
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Err(Failure(format!(
                    "mariadbd stopped at once ({status}); see {}",
                    root.join("server.log").display()
                )));
            }
            let made = Command::new(&client)
                .arg("--no-defaults")
                .arg(format!("--socket={}", socket.display()))
                .args(["-u", "root", "-e"])
                .arg(
                    "CREATE USER IF NOT EXISTS nl2sql@'%'; \
                     GRANT ALL ON *.* TO nl2sql@'%'",
                )
                .stdin(Stdio::null())
                .output();
            if made.is_ok_and(|o| o.status.success()) {
                return Ok(());
            }
            if Instant::now() > deadline {
                return Err(Failure("MariaDB took no connection within 30 s".into()));
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}

impl Drop for MariaDb {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// PyPI's pyspark, which the set-up installs: the whole Spark distribution, its Spark
/// Connect server included.
pub const PYSPARK_VERSION: &str = "4.3.0";
/// Where the set-up puts it: a virtual environment of the project's own.
pub const PYSPARK_VENV: &str = "target/tools/pyspark";

/// The Spark distribution inside the virtual environment (`…/site-packages/pyspark`), when
/// it holds the right version and its Spark Connect server.
pub fn spark_home(project: &Project) -> Option<PathBuf> {
    let lib = project.root.join(PYSPARK_VENV).join("lib");
    let home = fs::read_dir(&lib)
        .ok()?
        .flatten()
        .map(|python| python.path().join("site-packages").join("pyspark"))
        .find(|home| home.join("bin").join("spark-submit").is_file())?;
    let server = home
        .join("jars")
        .join(format!("spark-connect_2.13-{PYSPARK_VERSION}.jar"));
    server.is_file().then_some(home)
}

/// A Java runtime on the PATH, or JAVA_HOME's.
pub fn java() -> Option<PathBuf> {
    let home = std::env::var_os("JAVA_HOME").map(|h| PathBuf::from(h).join("bin").join("java"));
    let on_path = std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .map(|dir| dir.join("java"))
            .find(|java| java.is_file())
    });
    home.filter(|java| java.is_file()).or(on_path)
}

/// A running Spark Connect server in local mode, stopped on drop.
pub struct Spark {
    child: Child,
    port: u16,
}

impl Spark {
    /// Starts Spark Connect from PyPI's pyspark on a loopback port, its warehouse under
    /// `target/services/spark`, and loads the demo databases with `nl2sql copy` (the
    /// command line, built first: xtask itself is built without the Spark client, which
    /// needs the protobuf compiler the set-up installs).
    pub fn start(project: &Project) -> Result<Spark, Failure> {
        let started = Instant::now();
        let home = spark_home(project).ok_or_else(|| {
            Failure(format!(
                "pyspark {PYSPARK_VERSION} is not installed in {PYSPARK_VENV} (cargo xtask setup \
                 installs it)"
            ))
        })?;
        let root = project.root.join("target").join("services").join("spark");
        stop_leftover_matching(&root.join("server.pid"), "SparkConnectServer");
        if root.exists() {
            fs::remove_dir_all(&root)
                .map_err(|e| Failure(format!("cannot clear {}: {e}", root.display())))?;
        }
        fs::create_dir_all(&root)
            .map_err(|e| Failure(format!("cannot create {}: {e}", root.display())))?;
        let port = free_port()?;
        let log = fs::File::create(root.join("server.log"))
            .map_err(|e| Failure(format!("cannot create Spark's log: {e}")))?;
        let conf = [
            "spark.connect.grpc.binding.address=127.0.0.1".to_string(),
            format!("spark.connect.grpc.binding.port={port}"),
            "spark.driver.host=127.0.0.1".into(),
            "spark.driver.bindAddress=127.0.0.1".into(),
            "spark.ui.enabled=false".into(),
            // Tables live for the server's life; their Parquet files in the warehouse.
            "spark.sql.catalogImplementation=in-memory".into(),
            format!(
                "spark.sql.warehouse.dir={}",
                root.join("warehouse").display()
            ),
            // Two cores: a small result needs no 200 shuffle partitions.
            "spark.sql.shuffle.partitions=2".into(),
            "spark.sql.session.timeZone=UTC".into(),
            // A cancelled task stops at its next batch of input rows: with the vectorised
            // Parquet reader a batch is a whole small table, so a row-multiplying join kept
            // a core busy for a minute after its limit, slowing every test after it. Read
            // row by row, it stops at once (docs/engines.md).
            "spark.sql.parquet.enableVectorizedReader=false".into(),
        ];
        let mut command = Command::new(home.join("bin").join("spark-submit"));
        command
            .env("SPARK_HOME", &home)
            .env("SPARK_LOCAL_IP", "127.0.0.1")
            .env("SPARK_LOCAL_DIRS", root.join("scratch"))
            .args([
                "--class",
                "org.apache.spark.sql.connect.service.SparkConnectServer",
                "--name",
                "nl2sql-tests",
                "--master",
                "local[2]",
                "--driver-memory",
                "2g",
            ])
            .arg("--driver-java-options")
            .arg(format!(
                "-Duser.timezone=UTC -Dderby.system.home={}",
                root.display()
            ));
        for c in &conf {
            command.arg("--conf").arg(c);
        }
        let child = command
            .current_dir(&root)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .map_err(|e| Failure(format!("Spark Connect could not start: {e}")))?;
        let _ = fs::write(root.join("server.pid"), child.id().to_string());
        let mut server = Spark { child, port };
        server.wait_ready(&root)?;
        let ready = started.elapsed().as_secs_f64();
        let loading = Instant::now();
        load_demo(project, &server.url(), "Spark")?;
        println!(
            "    Spark Connect on 127.0.0.1:{port}: ready in {ready:.1} s, demo databases \
             loaded in {:.1} s",
            loading.elapsed().as_secs_f64()
        );
        Ok(server)
    }

    /// The base address (no database).
    pub fn url(&self) -> String {
        format!("sc://127.0.0.1:{}", self.port)
    }

    /// Waits for the server to take connections on its port.
    fn wait_ready(&mut self, root: &Path) -> Result<(), Failure> {
        let deadline = Instant::now() + Duration::from_secs(180);
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Err(Failure(format!(
                    "Spark Connect stopped at once ({status}); see {}",
                    root.join("server.log").display()
                )));
            }
            let address = std::net::SocketAddr::from(([127, 0, 0, 1], self.port));
            if std::net::TcpStream::connect_timeout(&address, Duration::from_secs(1)).is_ok() {
                return Ok(());
            }
            if Instant::now() > deadline {
                return Err(Failure(format!(
                    "Spark Connect took no connection within 180 s; see {}",
                    root.join("server.log").display()
                )));
            }
            std::thread::sleep(Duration::from_millis(250));
        }
    }
}

impl Drop for Spark {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Stops a server a killed run left behind, by the pid file it wrote.
fn stop_leftover(pid_file: &Path) {
    stop_leftover_matching(pid_file, "mariadbd");
}

/// Stops the process a pid file names, if it is still one whose command line holds `mark`
/// (the number may have been reused).
fn stop_leftover_matching(pid_file: &Path, mark: &str) {
    let pid = fs::read_to_string(pid_file)
        .ok()
        .and_then(|t| t.trim().parse::<u32>().ok());
    let ours = |pid: &u32| {
        fs::read(format!("/proc/{pid}/cmdline"))
            .is_ok_and(|c| String::from_utf8_lossy(&c).contains(mark))
    };
    if let Some(pid) = pid.filter(ours) {
        let _ = Command::new("kill").arg(pid.to_string()).status();
        std::thread::sleep(Duration::from_secs(1));
    }
}

/// MariaDB's programs, where Debian puts them.
fn mariadb_program(name: &str) -> Result<PathBuf, Failure> {
    ["/usr/sbin", "/usr/bin"]
        .iter()
        .map(|dir| Path::new(dir).join(name))
        .find(|p| p.is_file())
        .ok_or_else(|| {
            Failure(format!(
                "{name} is not installed (cargo xtask setup installs it)"
            ))
        })
}

/// Whether MariaDB's server is installed (the set-up asks).
pub fn mariadb_installed() -> bool {
    mariadb_program("mariadbd").is_ok() && mariadb_program("mariadb-install-db").is_ok()
}

fn current_user() -> String {
    Command::new("id")
        .arg("-un")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .filter(|u| !u.is_empty())
        .unwrap_or_else(|| "root".into())
}

/// Loads the demo databases into the server at `base` with `nl2sql copy` (xtask itself links
/// no database client, so its own build, the first of every run, stays small; the command
/// line's build is the tests' own, so this one is a no-op after the first).
fn load_demo(project: &Project, base: &str, name: &str) -> Result<(), Failure> {
    project
        .cargo_native("build", &[])
        .run("cargo build of the command line")?;
    let bin = project.nl2sql_binary().to_string_lossy().into_owned();
    for db in DEMO {
        let source = project.root.join("data").join(format!("{db}.sqlite"));
        project
            .command(
                &bin,
                &[
                    "copy",
                    &source.to_string_lossy(),
                    &format!("{base}/{db}"),
                    "--replace",
                ],
            )
            .output(&format!("nl2sql copy {db} into {name}"))?;
    }
    Ok(())
}

/// One of PostgreSQL's programs, run as its own `postgres` user when asked (it refuses to
/// run as root).
fn postgres_tool(bin: &Path, tool: &str, as_postgres_user: bool) -> Command {
    if as_postgres_user {
        let mut c = Command::new("runuser");
        c.args(["-u", "postgres", "--"]).arg(bin.join(tool));
        c
    } else {
        Command::new(bin.join(tool))
    }
}

fn pg_ctl_stop(bin: &Path, data: &Path, as_postgres_user: bool) -> Result<(), Failure> {
    let mut command = postgres_tool(bin, "pg_ctl", as_postgres_user);
    command
        .arg("-D")
        .arg(data)
        .args(["-m", "immediate", "stop"]);
    run(&mut command, "pg_ctl stop")
}

/// The newest PostgreSQL's programs Debian installed (`/usr/lib/postgresql/N/bin`).
fn postgres_bin() -> Result<PathBuf, Failure> {
    let base = Path::new("/usr/lib/postgresql");
    let newest = fs::read_dir(base)
        .ok()
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let version: u32 = e.file_name().to_string_lossy().parse().ok()?;
            let bin = e.path().join("bin");
            bin.join("initdb").is_file().then_some((version, bin))
        })
        .max_by_key(|(v, _)| *v);
    newest.map(|(_, bin)| bin).ok_or_else(|| {
        Failure("PostgreSQL's server is not installed (cargo xtask setup installs it)".into())
    })
}

/// Whether a package's server programs are installed (the set-up asks).
pub fn postgres_installed() -> bool {
    postgres_bin().is_ok()
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

/// A loopback port nothing listens on now.
fn free_port() -> Result<u16, Failure> {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .map_err(|e| Failure(format!("no free loopback port: {e}")))
}

fn run(command: &mut Command, what: &str) -> Result<(), Failure> {
    let out = command
        .stdin(Stdio::null())
        .output()
        .map_err(|e| Failure(format!("{what} could not start: {e}")))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(Failure(format!(
            "{what} failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        )))
    }
}
