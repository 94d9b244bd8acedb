//! The configuration file: its text read as TOML of the file's shape, then resolved with no flag
//! or variable set into checked settings, as `papertide serve` does at start. Any text: no panic;
//! settings that resolve are within their documented bounds.
#![no_main]

use libfuzzer_sys::fuzz_target;

use config::{parse_file_config, resolve, CommonArgs, ServeArgs};

fuzz_target!(|text: &str| {
    let Ok(file) = parse_file_config(text) else {
        return;
    };
    let Ok(settings) = resolve(file, &CommonArgs::default(), &ServeArgs::default()) else {
        return;
    };
    assert!(settings.digest_hour <= 23 && settings.harvest.hour <= 23);
    assert!(settings.harvest.lookback_days >= 1);
    assert!(matches!(settings.public_url.scheme(), "http" | "https"));
    let rates = settings.rate_limits;
    for rate in [rates.login, rates.signup, rates.forgot_password, rates.resend, rates.reset_password, rates.immediate_search] {
        assert!(rate.max > 0 && !rate.window.is_zero(), "{rate:?}");
    }
});
