//! The object store for a URL, built per scheme from the environment
//! (the AWS, Google and Azure tools' variables), with retries, timeouts
//! and no redirects followed off the host asked for.

use std::sync::Arc;
use std::time::Duration;

use object_store::aws::AmazonS3ConfigKey;
use object_store::azure::AzureConfigKey;
use object_store::gcp::GoogleConfigKey;
use object_store::path::Path as StorePath;
use object_store::{ClientConfigKey, ClientOptions, ObjectStore, ObjectStoreScheme, RetryConfig};

use plumb_core::Refusal;

use crate::scrub::scrub;
use crate::{RemoteConfig, RemoteUrl};

/// A client that answers a redirect as it is, an error, rather than
/// following it.
#[derive(Debug)]
pub(crate) struct NoRedirects {
    timeout: Duration,
    connect_timeout: Duration,
}

impl object_store::client::HttpConnector for NoRedirects {
    fn connect(
        &self,
        _options: &ClientOptions,
    ) -> object_store::Result<object_store::client::HttpClient> {
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(self.timeout)
            .connect_timeout(self.connect_timeout)
            .build()
            .map_err(|e| object_store::Error::Generic {
                store: "HTTP",
                source: Box::new(e),
            })?;
        Ok(object_store::client::HttpClient::new(client))
    }
}

pub(crate) fn store_for(
    url: &RemoteUrl,
    config: &RemoteConfig,
) -> Result<(Arc<dyn ObjectStore>, StorePath), Refusal> {
    let shown = url.as_str();
    let bad = |e: &dyn std::fmt::Display| {
        Refusal::invalid_argument(format!(
            "`{shown}` cannot be opened: {}",
            scrub(&e.to_string())
        ))
    };
    let (scheme, path) = ObjectStoreScheme::parse(&url.url).map_err(|e| bad(&e))?;
    let retry = RetryConfig {
        max_retries: config.retries,
        ..RetryConfig::default()
    };
    let pinned = || NoRedirects {
        timeout: config.timeout,
        connect_timeout: config.connect_timeout,
    };
    let follow = config.follow_redirects;
    let timeout = format!("{}ms", config.timeout.as_millis());
    let connect = format!("{}ms", config.connect_timeout.as_millis());
    // The cloud builders are different types with the same steps. The
    // timeouts are set as configuration keys on top of what the builder
    // read from the environment, so that the store's own client
    // variables (`AWS_ALLOW_HTTP`, `GOOGLE_PROXY_URL`, ...) still hold.
    macro_rules! built {
        ($b:expr, $key:path) => {{
            let mut b = $b
                .with_config($key(ClientConfigKey::Timeout), &timeout)
                .with_config($key(ClientConfigKey::ConnectTimeout), &connect)
                .with_retry(retry);
            if !follow {
                b = b.with_http_connector(pinned());
            }
            Arc::new(b.build().map_err(|e| bad(&e))?)
        }};
    }
    let store: Arc<dyn ObjectStore> = match scheme {
        ObjectStoreScheme::AmazonS3 => {
            let mut b = object_store::aws::AmazonS3Builder::from_env().with_url(url.url.as_str());
            // The AWS tools' own name for a custom endpoint.
            let endpoint = std::env::var("AWS_ENDPOINT")
                .or_else(|_| std::env::var("AWS_ENDPOINT_URL_S3"))
                .or_else(|_| std::env::var("AWS_ENDPOINT_URL"))
                .ok();
            if let Some(ep) = &endpoint {
                b = b.with_endpoint(ep);
                if ep.starts_with("http://") {
                    b = b.with_config(
                        AmazonS3ConfigKey::Client(ClientConfigKey::AllowHttp),
                        "true",
                    );
                }
            }
            if std::env::var("AWS_REGION").is_err() && std::env::var("AWS_DEFAULT_REGION").is_err()
            {
                b = b.with_region("us-east-1");
            } else if let Ok(region) = std::env::var("AWS_REGION") {
                b = b.with_region(region);
            }
            built!(b, AmazonS3ConfigKey::Client)
        }
        ObjectStoreScheme::GoogleCloudStorage => {
            let b =
                object_store::gcp::GoogleCloudStorageBuilder::from_env().with_url(url.url.as_str());
            built!(b, GoogleConfigKey::Client)
        }
        ObjectStoreScheme::MicrosoftAzure => {
            let b =
                object_store::azure::MicrosoftAzureBuilder::from_env().with_url(url.url.as_str());
            built!(b, AzureConfigKey::Client)
        }
        ObjectStoreScheme::Http => {
            let origin = &url.url[..url::Position::BeforePath];
            let mut b = object_store::http::HttpBuilder::new()
                .with_url(origin)
                .with_client_options(
                    ClientOptions::new()
                        .with_timeout(config.timeout)
                        .with_connect_timeout(config.connect_timeout)
                        .with_allow_http(true),
                )
                .with_retry(retry);
            if !follow {
                b = b.with_http_connector(pinned());
            }
            Arc::new(b.build().map_err(|e| bad(&e))?)
        }
        _ => {
            return Err(Refusal::invalid_argument(format!(
                "`{shown}` is not a remote object URL plumb reads"
            )))
        }
    };
    Ok((store, path))
}
