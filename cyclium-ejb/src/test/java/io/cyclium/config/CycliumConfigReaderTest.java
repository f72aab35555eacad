package io.cyclium.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CycliumConfigReaderTest {

    private static CycliumConfig read(String... keyValues) {
        Map<String, String> values = new HashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            values.put(keyValues[i], keyValues[i + 1]);
        }
        return CycliumConfigReader.read(p -> Optional.ofNullable(values.get(p)));
    }

    @Test
    void defaults_apply_when_nothing_is_configured() {
        CycliumConfig c = read();
        assertThat(c.nodeIdentity()).isEmpty();
        assertThat(c.mode()).isEqualTo(NodeMode.FULL);
        assertThat(c.stackSlug()).isNull();
        assertThat(c.env()).isNull();
        assertThat(c.migrateSchema()).isTrue();
        assertThat(c.workClaimsEnabled()).isTrue();
        assertThat(c.leaseSeconds()).isEqualTo(120);
        assertThat(c.heartbeatInterval()).isEqualTo(Duration.ofSeconds(40));
        assertThat(c.staleAfter()).isEqualTo(Duration.ofMinutes(2));
        assertThat(c.recoveryInitialDelay()).isEqualTo(Duration.ofMinutes(2));
        assertThat(c.recoveryInterval()).isEqualTo(Duration.ofSeconds(30));
        assertThat(c.triggerPollInterval()).isEqualTo(Duration.ofSeconds(5));
        assertThat(c.triggerPollExpireAfter()).isEqualTo(Duration.ofHours(1));
        assertThat(c.shutdownGrace()).isEqualTo(Duration.ofSeconds(5));
        assertThat(c.jitterMaxMs()).isEqualTo(200);
        assertThat(c.maxConcurrentDefault()).isEqualTo(3);
        assertThat(c.groupCommitMax()).isEqualTo(64);
        assertThat(c.groupCommitWriters()).isEqualTo(1);
    }

    @Test
    void configured_values_are_read_and_trimmed() {
        CycliumConfig c = read(
                "cyclium.node-identity", " node-a.eu-1 ",
                "cyclium.mode", "TRIGGER-ONLY",
                "cyclium.stack-slug", "stack_a",
                "cyclium.env", "rc",
                "cyclium.work-claims.lease-seconds", "9",
                "cyclium.recovery.stale-after-ms", "5000",
                "cyclium.episode.shutdown-ms", "30000");
        assertThat(c.nodeIdentity()).contains("node-a.eu-1");
        assertThat(c.mode()).isEqualTo(NodeMode.TRIGGER_ONLY);
        assertThat(c.stackSlug()).isEqualTo("stack_a");
        assertThat(c.env()).isEqualTo("rc");
        assertThat(c.leaseSeconds()).isEqualTo(9);
        assertThat(c.heartbeatInterval()).isEqualTo(Duration.ofSeconds(3));
        assertThat(c.staleAfter()).isEqualTo(Duration.ofSeconds(5));
        assertThat(c.shutdownGrace()).isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    void a_blank_value_counts_as_unset() {
        CycliumConfig c = read("cyclium.node-identity", "  ", "cyclium.env", "", "cyclium.mode", " ");
        assertThat(c.nodeIdentity()).isEmpty();
        assertThat(c.env()).isNull();
        assertThat(c.mode()).isEqualTo(NodeMode.FULL);
    }

    @ParameterizedTest(name = "{0} = \"{1}\" is rejected naming {2}")
    @CsvSource(delimiter = '|', value = {
        "cyclium.work-claims.lease-seconds | -5      | cyclium.work-claims.lease-seconds = -5 is out of range: allowed are 3 to 86400 seconds",
        "cyclium.work-claims.lease-seconds | 2       | cyclium.work-claims.lease-seconds = 2 is out of range: allowed are 3 to 86400 seconds",
        "cyclium.work-claims.lease-seconds | ten     | cyclium.work-claims.lease-seconds = \"ten\" is not a whole number",
        "cyclium.mode                      | turbo   | cyclium.mode = \"turbo\" is not a mode: allowed are full | trigger_only | disabled",
        "cyclium.node-identity             | my node | cyclium.node-identity = \"my node\" is not a valid node identity",
        "cyclium.node-identity             | -lead   | cyclium.node-identity = \"-lead\" is not a valid node identity",
        "cyclium.stack-slug                | Stack A | cyclium.stack-slug = \"Stack A\" is not allowed",
        "cyclium.env                       | prod/eu | cyclium.env = \"prod/eu\" is not allowed",
        "cyclium.recovery.stale-after-ms   | 10      | cyclium.recovery.stale-after-ms = 10 is out of range: allowed are 1000 to",
        "cyclium.trigger-poll.interval-ms  | 0       | cyclium.trigger-poll.interval-ms = 0 is out of range",
        "cyclium.episode.shutdown-ms       | -1      | cyclium.episode.shutdown-ms = -1 is out of range",
        "cyclium.episode.group-commit-max  | 0       | cyclium.episode.group-commit-max = 0 is out of range: allowed are 1 to 10000 writes",
        "cyclium.episode.group-commit-writers | 65   | cyclium.episode.group-commit-writers = 65 is out of range: allowed are 1 to 64 threads",
        "cyclium.episode.executor          | vthreads | cyclium.episode.executor = \"vthreads\" is not an executor: allowed are threads, managed",
        "cyclium.schema.migrate            | yes     | cyclium.schema.migrate = \"yes\" is not a boolean: allowed are true | false",
        "cyclium.console.admin-password    | short   | cyclium.console.admin-password is too short (5 characters)",
        "cyclium.console.viewer-password   | tiny    | cyclium.console.viewer-password is too short (4 characters)",
        "cyclium.security.identity         | saml    | cyclium.security.identity = \"saml\" is not an identity source: allowed are builtin, server, oidc",
        "cyclium.security.identity         | ldap    | cyclium.security.identity = \"ldap\" is not an identity source: allowed are builtin, server, oidc (for LDAP, configure the server's LDAP realm",
    })
    void a_bad_value_fails_with_a_message_naming_property_value_and_range(String property, String value, String message) {
        assertThatThrownBy(() -> read(property, value))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining(message);
    }

    @Test
    void users_come_from_the_built_in_accounts_unless_the_server_realm_is_chosen() {
        assertThat(read().identity()).isEqualTo(IdentitySource.BUILTIN);
        assertThat(read("cyclium.security.identity", " Server ").identity()).isEqualTo(IdentitySource.SERVER);
    }

    @Test
    void oidc_takes_the_provider_and_client_from_configuration() {
        CycliumConfig c = read("cyclium.security.identity", "oidc", "cyclium.security.oidc.issuer", "http://127.0.0.1:8180/realms/ops/",
                "cyclium.security.oidc.client-id", "cyclium", "cyclium.security.oidc.client-secret", "s3cret-value");
        assertThat(c.identity()).isEqualTo(IdentitySource.OIDC);
        OidcSettings oidc = c.oidc().orElseThrow();
        assertThat(oidc.issuer()).hasToString("http://127.0.0.1:8180/realms/ops");
        assertThat(oidc.clientId()).isEqualTo("cyclium");
        assertThat(oidc.clientSecret()).isEqualTo("s3cret-value");
        assertThat(oidc.groupsClaim()).isEqualTo("groups");
        assertThat(oidc.toString()).doesNotContain("s3cret-value");
        assertThat(oidc.audience()).as("an access token's audience: the client by default").isEqualTo("cyclium");
        assertThat(oidc.clockSkew()).isEqualTo(java.time.Duration.ofSeconds(30));
        assertThat(read("cyclium.security.oidc.issuer", "not checked unless oidc").oidc()).isEmpty();
        OidcSettings scripts = read("cyclium.security.identity", "oidc", "cyclium.security.oidc.issuer", "https://sso.example.com/realms/ops",
                "cyclium.security.oidc.client-id", "cyclium", "cyclium.security.oidc.client-secret", "s3cret-value",
                "cyclium.security.oidc.audience", "cyclium-api", "cyclium.security.oidc.clock-skew", "PT5S").oidc().orElseThrow();
        assertThat(scripts.audience()).isEqualTo("cyclium-api");
        assertThat(scripts.clockSkew()).isEqualTo(java.time.Duration.ofSeconds(5));
    }

    @Test
    void an_access_tokens_clock_skew_is_minutes_at_most() {
        assertThatThrownBy(() -> read("cyclium.security.identity", "oidc", "cyclium.security.oidc.issuer", "https://sso.example.com/realms/ops",
                "cyclium.security.oidc.client-id", "cyclium", "cyclium.security.oidc.client-secret", "s3cret-value",
                "cyclium.security.oidc.clock-skew", "PT1H"))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("cyclium.security.oidc.clock-skew = PT1H is out of range: allowed are ISO-8601 durations"
                        + " from PT0S to PT5M");
    }

    @Test
    void oidc_without_its_settings_or_with_a_bad_issuer_names_each_problem() {
        assertThatThrownBy(() -> read("cyclium.security.identity", "oidc"))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("cyclium.security.oidc.issuer is not set (needed by cyclium.security.identity = oidc)")
                .hasMessageContaining("cyclium.security.oidc.client-id is not set")
                .hasMessageContaining("cyclium.security.oidc.client-secret is not set");
        assertThatThrownBy(() -> read("cyclium.security.identity", "oidc", "cyclium.security.oidc.issuer", "sso.example.com/realms/ops",
                "cyclium.security.oidc.client-id", "cyclium", "cyclium.security.oidc.client-secret", "s3cret-value",
                "cyclium.security.oidc.groups-claim", "roles of mine"))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("cyclium.security.oidc.issuer = \"sso.example.com/realms/ops\" is not an issuer URL:"
                        + " allowed is an absolute http or https URL without query or fragment")
                .hasMessageContaining("cyclium.security.oidc.groups-claim = \"roles of mine\" is not a claim name")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("s3cret-value"));
    }

    @Test
    void a_lease_whose_heartbeat_would_tick_below_the_minimum_is_rejected() {
        assertThatThrownBy(() -> read("cyclium.work-claims.lease-seconds", "4",
                "cyclium.work-claims.heartbeat-min-tick-ms", "2000"))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("cyclium.work-claims.lease-seconds = 4 gives a heartbeat every 1333 ms")
                .hasMessageContaining("allowed are leases of at least 6 seconds");
    }

    @Test
    void episodes_run_on_the_thread_pool_unless_the_managed_executor_is_chosen_whose_threads_are_bounded() {
        assertThat(read().episodeExecutor()).isEqualTo(CycliumConfig.EpisodeExecutor.THREADS);
        assertThat(read("cyclium.episode.executor", " Managed ").episodeExecutor()).isEqualTo(CycliumConfig.EpisodeExecutor.MANAGED);
        assertThat(read("cyclium.episode.executor", "managed", "cyclium.episode.executor-threads", "32").executorThreads()).isEqualTo(32);
        assertThatThrownBy(() -> read("cyclium.episode.executor", "managed", "cyclium.episode.executor-threads", "33"))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("cyclium.episode.executor-threads = 33 with cyclium.episode.executor = managed: allowed are 1 to 32");
        assertThat(read("cyclium.episode.executor", "threads", "cyclium.episode.executor-threads", "200").executorThreads()).isEqualTo(200);
    }

    @Test
    void every_problem_is_reported_at_once() {
        InvalidConfigurationException e = (InvalidConfigurationException) org.assertj.core.api.Assertions.catchThrowable(
                () -> read("cyclium.mode", "x", "cyclium.work-claims.lease-seconds", "-1", "cyclium.env", "A B"));
        assertThat(e.problems()).hasSize(3);
    }

    @Test
    void control_characters_in_a_bad_value_are_escaped_in_the_message() {
        assertThatThrownBy(() -> read("cyclium.mode", "full\u001b[31m"))
                .hasMessageContaining("full\\u001b[31m")
                .satisfies(t -> assertThat(t.getMessage()).doesNotContain("\u001b"));
    }

    @Test
    void traces_are_off_until_the_one_telemetry_switch_says_the_sdk_is_not_disabled() {
        assertThat(read().tracing()).isFalse();
        assertThat(read("otel.sdk.disabled", "true").tracing()).isFalse();
        assertThat(read("otel.sdk.disabled", "false").tracing()).isTrue();
        assertThat(read("otel.sdk.disabled", "FALSE").tracing()).isTrue();
    }

    @Test
    void a_telemetry_switch_that_is_not_a_boolean_fails_naming_it() {
        assertThatThrownBy(() -> read("otel.sdk.disabled", "no"))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("otel.sdk.disabled = \"no\" is not a boolean: allowed are true | false");
    }

    @Test
    void the_console_passwords_never_appear_in_to_string() {
        CycliumConfig c = read("cyclium.console.admin-password", "s3cret-value",
                "cyclium.console.viewer-password", "v1ewer-value");
        assertThat(c.adminPassword()).contains("s3cret-value");
        assertThat(c.viewerPassword()).contains("v1ewer-value");
        assertThat(c.toString()).doesNotContain("s3cret-value").doesNotContain("v1ewer-value");
    }

    @Test
    void the_console_passwords_are_also_read_from_their_short_environment_names() {
        CycliumConfig c = read("CYCLIUM_ADMIN_PASSWORD", "from-the-env", "CYCLIUM_VIEWER_PASSWORD", "viewer-env");
        assertThat(c.adminPassword()).contains("from-the-env");
        assertThat(c.viewerPassword()).contains("viewer-env");
        assertThatThrownBy(() -> read("CYCLIUM_VIEWER_PASSWORD", "short"))
                .hasMessageContaining("cyclium.console.viewer-password is too short (5 characters)");
    }

    @Test
    void retention_defaults_archive_after_a_week_and_never_purge() {
        RetentionSettings r = read().retention();
        assertThat(r.enabled()).isTrue();
        assertThat(r.dailyAt()).isEqualTo(java.time.LocalTime.of(3, 30));
        assertThat(r.archiveAfter()).isEqualTo(Duration.ofDays(7));
        assertThat(r.purgeAfter()).isEmpty();
        assertThat(r.claimsAfter()).isEqualTo(Duration.ofDays(1));
        assertThat(r.requestsAfter()).isEqualTo(Duration.ofDays(1));
        assertThat(r.chunkSize()).isEqualTo(500);
        assertThat(r.catchUp()).isEqualTo(Duration.ofMinutes(5));
    }

    @Test
    void retention_windows_are_iso_durations_and_purge_can_be_switched_on() {
        RetentionSettings r = read("cyclium.retention.archive-after", "p2dt12h", "cyclium.retention.purge-after", "P30D",
                "cyclium.retention.claims-after", "PT6H", "cyclium.retention.requests-after", "PT2H",
                "cyclium.retention.chunk-size", "2000", "cyclium.retention.daily-at", "23:05",
                "cyclium.retention.enabled", "false").retention();
        assertThat(r.archiveAfter()).isEqualTo(Duration.ofHours(60));
        assertThat(r.purgeAfter()).contains(Duration.ofDays(30));
        assertThat(r.claimsAfter()).isEqualTo(Duration.ofHours(6));
        assertThat(r.requestsAfter()).isEqualTo(Duration.ofHours(2));
        assertThat(r.chunkSize()).isEqualTo(2000);
        assertThat(r.dailyAt()).isEqualTo(java.time.LocalTime.of(23, 5));
        assertThat(r.enabled()).isFalse();
        assertThat(read("cyclium.retention.purge-after", "off").retention().purgeAfter()).isEmpty();
    }

    @Test
    void the_catch_up_tick_is_a_duration_in_seconds_or_minutes_and_the_older_minutes_setting_still_works() {
        assertThat(read("cyclium.retention.catch-up", "PT10S").retention().catchUp()).isEqualTo(Duration.ofSeconds(10));
        assertThat(read("cyclium.retention.catch-up", "PT15M").retention().catchUp()).isEqualTo(Duration.ofMinutes(15));
        assertThat(read("cyclium.retention.catch-up-minutes", "2").retention().catchUp()).isEqualTo(Duration.ofMinutes(2));
        assertThatThrownBy(() -> read("cyclium.retention.catch-up", "PT10S", "cyclium.retention.catch-up-minutes", "2"))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("cyclium.retention.catch-up and cyclium.retention.catch-up-minutes are both set");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "cyclium.retention.archive-after|7 days|cyclium.retention.archive-after = \"7 days\" is not a duration: allowed are ISO-8601 durations from PT1H to P3650D",
            "cyclium.retention.archive-after|PT5M|cyclium.retention.archive-after = PT5M is out of range: allowed are ISO-8601 durations from PT1H",
            "cyclium.retention.purge-after|never|cyclium.retention.purge-after = \"never\" is not a duration: allowed are ISO-8601 durations from PT1H to P3650D (e.g. PT12H, P7D), or off",
            "cyclium.retention.claims-after|P9999D|cyclium.retention.claims-after = P9999D is out of range",
            "cyclium.retention.requests-after|-PT2H|cyclium.retention.requests-after = -PT2H is out of range",
            "cyclium.retention.chunk-size|5|cyclium.retention.chunk-size = 5 is out of range: allowed are 10 to 10000 rows",
            "cyclium.retention.catch-up-minutes|0|cyclium.retention.catch-up-minutes = 0 is out of range: allowed are 1 to 60 minutes",
            "cyclium.retention.catch-up|PT2S|cyclium.retention.catch-up = PT2S is out of range: allowed are ISO-8601 durations from PT5S",
            "cyclium.retention.catch-up|PT90S|cyclium.retention.catch-up = PT90S is not a whole number of seconds under a minute or of minutes",
            "cyclium.retention.chunk-size|lots|cyclium.retention.chunk-size = \"lots\" is not a whole number",
            "cyclium.retention.daily-at|25:00|cyclium.retention.daily-at = \"25:00\" is not a time of day: allowed are HH:mm from 00:00 to 23:59 (UTC)",
            "cyclium.retention.daily-at|3:30|cyclium.retention.daily-at = \"3:30\" is not a time of day",
            "cyclium.retention.enabled|yes|cyclium.retention.enabled = \"yes\" is not a boolean"})
    void a_bad_retention_setting_names_property_value_and_range(String property, String value, String message) {
        assertThatThrownBy(() -> read(property, value)).isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining(message);
    }

    @Test
    void a_bulk_action_takes_ten_thousand_episodes_unless_configured_and_the_cap_is_checked() {
        assertThat(read().bulkMaxItems()).isEqualTo(10_000);
        assertThat(read("cyclium.bulk.max-items", "250").bulkMaxItems()).isEqualTo(250);
        assertThatThrownBy(() -> read("cyclium.bulk.max-items", "0")).isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("cyclium.bulk.max-items = 0 is out of range: allowed are 1 to 100000 episodes");
        assertThatThrownBy(() -> read("cyclium.bulk.max-items", "all")).isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("cyclium.bulk.max-items = \"all\" is not a whole number");
    }

    @Test
    void a_bulk_action_s_lease_is_a_minute_unless_configured_and_at_least_five_seconds() {
        assertThat(read().bulkLease()).isEqualTo(Duration.ofSeconds(60));
        assertThat(read("cyclium.bulk.lease-seconds", "6").bulkLease()).isEqualTo(Duration.ofSeconds(6));
        assertThatThrownBy(() -> read("cyclium.bulk.lease-seconds", "1")).isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("cyclium.bulk.lease-seconds = 1 is out of range: allowed are 5 to 3600 seconds");
    }
}
