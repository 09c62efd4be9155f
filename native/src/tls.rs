//! TLS to database servers, asked for in the address as PostgreSQL's own tools ask:
//! `sslmode=disable|prefer|require|verify-full` and `sslrootcert=PATH`, on `postgres://` and
//! `mysql://` alike. The connection is made by rustls (no system OpenSSL).
//!
//! - `disable`: never TLS.
//! - `prefer` (the default): TLS when the server offers it, its certificate not checked, as
//!   `libpq` does; plain otherwise. MySQL's client cannot fall back, so there it is plain.
//! - `require`: TLS or no connection, the certificate not checked (`libpq`'s meaning):
//!   encrypted, but not proof of whom it talks to.
//! - `verify-full`: TLS, the server's certificate checked against `sslrootcert` (else the
//!   Mozilla roots) and its name against the address's host.

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme};
use std::path::PathBuf;
use std::sync::Arc;

/// What the address asks of the connection's encryption.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum TlsMode {
    /// Never TLS.
    Disable,
    /// TLS when the server offers it, unchecked (the default).
    #[default]
    Prefer,
    /// TLS or no connection, the certificate unchecked.
    Require,
    /// TLS with the certificate and the host name checked.
    VerifyFull,
}

/// The address's TLS settings.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tls {
    /// The mode.
    pub mode: TlsMode,
    /// The certificate authorities to trust (PEM), for `verify-full`; none: the Mozilla
    /// roots.
    pub root_cert: Option<PathBuf>,
}

/// The query parameters [`Tls`] reads, which the drivers must not see.
pub const TLS_PARAMETERS: [&str; 2] = ["sslmode", "sslrootcert"];

impl Tls {
    /// The settings the address's query parameters give.
    pub fn from_parameters<'a>(
        pairs: impl Iterator<Item = (&'a str, &'a str)>,
    ) -> Result<Tls, String> {
        let mut tls = Tls::default();
        for (key, value) in pairs {
            match key {
                "sslmode" => {
                    tls.mode = match value {
                        "disable" => TlsMode::Disable,
                        "prefer" | "allow" => TlsMode::Prefer,
                        "require" => TlsMode::Require,
                        "verify-full" => TlsMode::VerifyFull,
                        "verify-ca" => {
                            return Err("sslmode=verify-ca is not offered: use verify-full, \
                                        which checks the host name as well"
                                .into())
                        }
                        other => {
                            return Err(format!(
                                "sslmode={other:?}: expected disable, prefer, require or \
                                 verify-full"
                            ))
                        }
                    }
                }
                "sslrootcert" => tls.root_cert = Some(PathBuf::from(value)),
                _ => {}
            }
        }
        Ok(tls)
    }

    /// The rustls configuration for a mode that uses TLS; `None` for `disable`.
    pub fn client_config(&self) -> Result<Option<ClientConfig>, String> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let builder = ClientConfig::builder_with_provider(Arc::clone(&provider))
            .with_safe_default_protocol_versions()
            .map_err(|e| format!("TLS cannot be set up: {e}"))?;
        Ok(Some(match self.mode {
            TlsMode::Disable => return Ok(None),
            TlsMode::Prefer | TlsMode::Require => builder
                .dangerous()
                .with_custom_certificate_verifier(Arc::new(Unchecked(provider)))
                .with_no_client_auth(),
            TlsMode::VerifyFull => builder
                .with_root_certificates(self.roots()?)
                .with_no_client_auth(),
        }))
    }

    /// The certificate authorities `verify-full` trusts.
    fn roots(&self) -> Result<RootCertStore, String> {
        let mut roots = RootCertStore::empty();
        let Some(path) = &self.root_cert else {
            roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
            return Ok(roots);
        };
        let unreadable = |e: &dyn std::fmt::Display| {
            format!(
                "sslrootcert {}: cannot read it as PEM certificates: {e}",
                path.display()
            )
        };
        for cert in CertificateDer::pem_file_iter(path).map_err(|e| unreadable(&e))? {
            roots
                .add(cert.map_err(|e| unreadable(&e))?)
                .map_err(|e| unreadable(&e))?;
        }
        if roots.is_empty() {
            return Err(unreadable(&"it holds no certificate"));
        }
        Ok(roots)
    }
}

/// Takes any certificate, but still checks that the server holds its key: `libpq`'s
/// `require` (and `prefer`), which encrypt without proving whom they talk to.
#[derive(Debug)]
struct Unchecked(Arc<CryptoProvider>);

impl ServerCertVerifier for Unchecked {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_read_as_postgresql_names_them_and_refuse_the_rest() {
        let tls = |q: &[(&str, &str)]| Tls::from_parameters(q.iter().copied());
        assert_eq!(tls(&[]).map(|t| t.mode), Ok(TlsMode::Prefer));
        assert_eq!(
            tls(&[("sslmode", "verify-full"), ("sslrootcert", "/ca.pem")]),
            Ok(Tls {
                mode: TlsMode::VerifyFull,
                root_cert: Some("/ca.pem".into())
            })
        );
        assert!(tls(&[("sslmode", "verify-ca")]).is_err_and(|e| e.contains("verify-full")));
        assert!(tls(&[("sslmode", "sometimes")]).is_err());
        assert!(Tls::default().client_config().is_ok_and(|c| c.is_some()));
        let missing = Tls {
            mode: TlsMode::VerifyFull,
            root_cert: Some("/no/such/ca.pem".into()),
        };
        assert!(missing
            .client_config()
            .is_err_and(|e| e.contains("/no/such/ca.pem")));
    }
}
