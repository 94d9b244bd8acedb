//! The SMTP client the mailer sends through: lettre's SMTP conversation on a socket of our own,
//! and one connection kept open between mails.
//!
//! Why our own socket: lettre writes a message and its final `.` in two writes. On a socket
//! with Nagle's algorithm on (lettre's own), the `.` waits in the kernel until the server
//! acknowledges the message, which a server delaying its ACKs does after some 40 ms. A process
//! killed then never reads the server's answer, yet the kernel still sends the `.` when it
//! closes the socket, and the server delivers a mail the queue will send again. Here the socket
//! has `TCP_NODELAY` (the `.` leaves at once) and `SO_LINGER` 0 (a socket closed by a dying
//! process is reset, and nothing it still held is sent), so that window is one round trip to
//! the server. Implicit TLS (`smtps://`) needs TLS before the server's greeting, which lettre
//! only does on a socket it opens itself: there the window stays as it was.
//!
//! Every step (connecting, the greeting, STARTTLS, authentication, a mail) is bounded by the
//! configured timeout. A connection is reused while the server answers `NOOP`, and dropped
//! after any error.

use std::time::Duration;

use lettre::address::Envelope;
use lettre::transport::smtp::authentication::{Credentials, DEFAULT_MECHANISMS};
use lettre::transport::smtp::client::{AsyncSmtpConnection, Certificate, Tls, TlsParameters};
use lettre::transport::smtp::commands::{Data, Mail, Rcpt};
use lettre::transport::smtp::extension::{ClientId, Extension, MailBodyParameter, MailParameter};
use tokio::net::TcpStream;
use tokio::sync::Mutex;

use crate::error::MailError;

const SMTP_PORT: u16 = 25;
const SUBMISSION_PORT: u16 = 587;
const SUBMISSIONS_PORT: u16 = 465;

/// Where and how to reach the SMTP server.
#[derive(Clone)]
pub struct SmtpServer {
    pub host: String,
    pub port: u16,
    pub tls: Tls,
    pub credentials: Option<Credentials>,
    pub hello_name: ClientId,
    /// The most any one step may take.
    pub timeout: Duration,
}

impl SmtpServer {
    /// The server a connection URL names: `smtp://host[:port]` (plain), with `?tls=required` or
    /// `?tls=opportunistic` (STARTTLS, port 587 by default), or `smtps://host[:port]` (implicit
    /// TLS, 465); `user:password@` for credentials (percent-encoded) and a path for the name
    /// given in `EHLO`. `extra_root_pem` is a CA certificate trusted besides the system's.
    pub fn from_url(url: &str, extra_root_pem: Option<&[u8]>, timeout: Duration) -> Result<SmtpServer, MailError> {
        let invalid = |why: String| MailError::Permanent(format!("invalid SMTP URL: {why}"));
        let parsed = url::Url::parse(url).map_err(|error| invalid(error.to_string()))?;
        let host = parsed.host_str().filter(|host| !host.is_empty()).ok_or_else(|| invalid("no host".into()))?.to_owned();
        let tls_mode = parsed.query_pairs().find(|(key, _)| key == "tls").map(|(_, value)| value.into_owned());
        // A CA file is read even for a URL without TLS, so that a bad one is never set unnoticed.
        let root = extra_root_pem.map(root_certificate).transpose()?;
        let parameters = || tls_parameters(&host, root.clone());
        let (tls, default_port) = match (parsed.scheme(), tls_mode.as_deref()) {
            ("smtp", None) => (Tls::None, SMTP_PORT),
            ("smtp", Some("required")) => (Tls::Required(parameters()?), SUBMISSION_PORT),
            ("smtp", Some("opportunistic")) => (Tls::Opportunistic(parameters()?), SUBMISSION_PORT),
            ("smtps", None) => (Tls::Wrapper(parameters()?), SUBMISSIONS_PORT),
            (scheme, mode) => return Err(invalid(format!("scheme {scheme:?} with tls={mode:?}"))),
        };
        let credentials = match parsed.password() {
            Some(password) => {
                let decode = |text: &str| percent_decode(text).map_err(|error| invalid(format!("credentials: {error}")));
                Some(Credentials::new(decode(parsed.username())?, decode(password)?))
            }
            None => None,
        };
        let name = parsed.path().trim_matches('/');
        let hello_name = if name.is_empty() { ClientId::default() } else { ClientId::Domain(name.to_owned()) };
        Ok(SmtpServer { host, port: parsed.port().unwrap_or(default_port), tls, credentials, hello_name, timeout })
    }
}

fn root_certificate(pem: &[u8]) -> Result<Certificate, MailError> {
    if !String::from_utf8_lossy(pem).contains("-----BEGIN CERTIFICATE-----") {
        return Err(MailError::Permanent("the SMTP CA file holds no PEM certificate".into()));
    }
    Certificate::from_pem(pem).map_err(|error| MailError::Permanent(format!("reading the SMTP CA certificate: {error}")))
}

fn tls_parameters(host: &str, root: Option<Certificate>) -> Result<TlsParameters, MailError> {
    let mut builder = TlsParameters::builder(host.to_owned());
    if let Some(root) = root {
        builder = builder.add_root_certificate(root);
    }
    builder.build().map_err(|error| MailError::Permanent(format!("setting up SMTP TLS: {error}")))
}

fn percent_decode(text: &str) -> Result<String, std::string::FromUtf8Error> {
    String::from_utf8(engine::mail::decode_hex_escapes(text, b'%'))
}

/// Sends mail to one server over one kept connection (the mailer sends one mail at a time).
pub struct SmtpClient {
    server: SmtpServer,
    idle: Mutex<Option<AsyncSmtpConnection>>,
}

impl SmtpClient {
    pub fn new(server: SmtpServer) -> SmtpClient {
        SmtpClient { server, idle: Mutex::new(None) }
    }

    /// Sends one message; `Ok` once the server accepted it. `handing_over` runs once the
    /// server took the envelope, just before the message itself goes (the mailer journals
    /// that moment: see `store::sent_journal`). A connection that failed is dropped (closing it
    /// resets it), and the next mail opens a new one.
    pub async fn send(&self, envelope: &Envelope, message: &[u8], handing_over: impl FnOnce()) -> Result<(), MailError> {
        let mut held = self.idle.lock().await;
        let mut reused = held.take();
        if let Some(connection) = reused.as_mut() {
            if !self.within_timeout(connection.test_connected()).await.unwrap_or(false) {
                reused = None;
            }
        }
        let mut connection = match reused {
            Some(connection) => connection,
            None => self.connect().await?,
        };
        self.within_timeout(connection.command(Mail::new(envelope.from().cloned(), mail_parameters(&connection, envelope, message)?)))
            .await?
            .map_err(classify)?;
        for recipient in envelope.to() {
            self.within_timeout(connection.command(Rcpt::new(recipient.clone(), vec![]))).await?.map_err(classify)?;
        }
        self.within_timeout(connection.command(Data)).await?.map_err(classify)?;
        handing_over();
        self.within_timeout(connection.message(message)).await?.map_err(classify)?;
        *held = Some(connection);
        Ok(())
    }

    async fn connect(&self) -> Result<AsyncSmtpConnection, MailError> {
        let server = &self.server;
        let mut connection = match &server.tls {
            Tls::Wrapper(parameters) => {
                let address = (server.host.as_str(), server.port);
                let connecting =
                    AsyncSmtpConnection::connect_tokio1(address, Some(server.timeout), &server.hello_name, Some(parameters.clone()), None);
                self.within_timeout(connecting).await?.map_err(classify)?
            }
            _ => {
                let unreachable =
                    |error: std::io::Error| MailError::Transient(format!("connecting to the SMTP server {}:{}: {error}", server.host, server.port));
                let socket = self.within_timeout(TcpStream::connect((server.host.as_str(), server.port))).await?.map_err(unreachable)?;
                socket.set_nodelay(true).map_err(unreachable)?;
                // A zero linger never blocks: closing resets the connection at once.
                #[allow(deprecated)]
                socket.set_linger(Some(Duration::ZERO)).map_err(unreachable)?;
                self.within_timeout(AsyncSmtpConnection::connect_with_transport(Box::new(socket), &server.hello_name)).await?.map_err(classify)?
            }
        };
        match &server.tls {
            Tls::Required(parameters) => self.within_timeout(connection.starttls(parameters.clone(), &server.hello_name)).await?.map_err(classify)?,
            Tls::Opportunistic(parameters) if connection.can_starttls() => {
                self.within_timeout(connection.starttls(parameters.clone(), &server.hello_name)).await?.map_err(classify)?;
            }
            _ => {}
        }
        if let Some(credentials) = &server.credentials {
            self.within_timeout(connection.auth(DEFAULT_MECHANISMS, credentials)).await?.map_err(classify)?;
        }
        Ok(connection)
    }

    async fn within_timeout<T>(&self, step: impl std::future::Future<Output = T>) -> Result<T, MailError> {
        let seconds = self.server.timeout.as_secs_f64();
        tokio::time::timeout(self.server.timeout, step)
            .await
            .map_err(|_| MailError::Transient(format!("the SMTP server did not answer within {seconds} s")))
    }
}

/// The `MAIL FROM` parameters a message needs (RFC 6531 for addresses beyond ASCII, RFC 6152
/// for a body beyond ASCII), or a final error when the server lacks the extension.
fn mail_parameters(connection: &AsyncSmtpConnection, envelope: &Envelope, message: &[u8]) -> Result<Vec<MailParameter>, MailError> {
    let server = connection.server_info();
    let mut parameters = Vec::new();
    let addresses = envelope.from().into_iter().chain(envelope.to());
    if addresses.map(|address| address.as_ref()).any(|address: &str| !address.is_ascii()) {
        if !server.supports_feature(Extension::SmtpUtfEight) {
            return Err(MailError::Permanent("an address is not ASCII, and the SMTP server does not take SMTPUTF8".into()));
        }
        parameters.push(MailParameter::SmtpUtfEight);
    }
    if !message.is_ascii() {
        if !server.supports_feature(Extension::EightBitMime) {
            return Err(MailError::Permanent("the message is not ASCII, and the SMTP server does not take 8BITMIME".into()));
        }
        parameters.push(MailParameter::Body(MailBodyParameter::EightBitMime));
    }
    Ok(parameters)
}

/// Only a refusal of this message or its recipient is final (550–553); anything else, a 535
/// for wrong credentials included, is a setup or network problem an operator can fix, so the
/// mail waits in the queue (a restart retries it at once).
pub fn classify(error: lettre::transport::smtp::Error) -> MailError {
    let code = error.status().map(|code| code.to_string());
    let is_refusal = matches!(code.as_deref(), Some("550" | "551" | "552" | "553"));
    if error.is_permanent() && is_refusal {
        MailError::Permanent(error.to_string())
    } else {
        MailError::Transient(error.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_are_percent_decoded() {
        assert_eq!(percent_decode("p%40ss%2Fw%3Ard").ok().as_deref(), Some("p@ss/w:rd"));
        assert_eq!(percent_decode("plain%").ok().as_deref(), Some("plain%"));
    }

    #[test]
    fn urls_name_the_server_its_tls_and_credentials() {
        let timeout = Duration::from_secs(5);
        let plain = SmtpServer::from_url("smtp://127.0.0.1:2525", None, timeout).expect("plain");
        assert_eq!((plain.host.as_str(), plain.port, matches!(plain.tls, Tls::None)), ("127.0.0.1", 2525, true));
        assert!(plain.credentials.is_none());
        let submission =
            SmtpServer::from_url("smtp://ada:p%40ss@mail.example.org/papers.example.org?tls=required", None, timeout).expect("submission");
        assert_eq!(submission.port, 587);
        assert!(matches!(submission.tls, Tls::Required(_)));
        assert_eq!(submission.credentials, Some(Credentials::new("ada".into(), "p@ss".into())));
        assert_eq!(submission.hello_name, ClientId::Domain("papers.example.org".into()));
        assert!(matches!(
            SmtpServer::from_url("smtp://mail.example.org?tls=opportunistic", None, timeout).expect("opportunistic").tls,
            Tls::Opportunistic(_)
        ));
        let implicit = SmtpServer::from_url("smtps://mail.example.org", None, timeout).expect("implicit");
        assert_eq!(implicit.port, 465);
        assert!(matches!(implicit.tls, Tls::Wrapper(_)));
    }

    #[test]
    fn bad_urls_and_ca_files_are_refused() {
        let timeout = Duration::from_secs(5);
        for url in ["not a url", "http://mail.example.org", "smtp://mail.example.org?tls=sometimes", "smtp:///nohost"] {
            assert!(SmtpServer::from_url(url, None, timeout).is_err(), "{url}");
        }
        assert!(SmtpServer::from_url("smtps://mail.example.org", Some(b"not a certificate"), timeout).is_err());
        assert!(SmtpServer::from_url("smtp://mail.example.org", Some(b"not a certificate"), timeout).is_err(), "checked without TLS too");
    }
}
