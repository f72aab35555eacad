package io.cyclium.config;

import java.time.Duration;
import java.time.LocalTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Turns raw properties into a {@link CycliumConfig}, collecting every problem before failing so
 * the operator sees all of them at once. Each message names the property, the value and what is
 * allowed.
 */
public final class CycliumConfigReader {

    public static final String NODE_IDENTITY = "cyclium.node-identity";
    public static final String MODE = "cyclium.mode";
    public static final String STACK_SLUG = "cyclium.stack-slug";
    public static final String ENV = "cyclium.env";
    public static final String SCHEMA_MIGRATE = "cyclium.schema.migrate";
    public static final String DEMO_ENABLED = "cyclium.demo.enabled";
    /**
     * MicroProfile Telemetry's own switch, read here too: {@code false} turns on the server's
     * OpenTelemetry SDK and Cyclium's spans together (one setting); unset or {@code true}, no span is made.
     */
    public static final String OTEL_SDK_DISABLED = "otel.sdk.disabled";
    public static final String CLAIMS_ENABLED = "cyclium.work-claims.enabled";
    public static final String LEASE_SECONDS = "cyclium.work-claims.lease-seconds";
    public static final String HEARTBEAT_MIN_TICK_MS = "cyclium.work-claims.heartbeat-min-tick-ms";
    public static final String RECOVERY_INITIAL_DELAY_MS = "cyclium.recovery.initial-delay-ms";
    public static final String RECOVERY_INTERVAL_MS = "cyclium.recovery.interval-ms";
    public static final String STALE_AFTER_MS = "cyclium.recovery.stale-after-ms";
    public static final String POLL_INTERVAL_MS = "cyclium.trigger-poll.interval-ms";
    public static final String POLL_EXPIRE_AFTER_MS = "cyclium.trigger-poll.expire-after-ms";
    public static final String POLL_BATCH_SIZE = "cyclium.trigger-poll.batch-size";
    public static final String POLL_SOURCE_ENV = "cyclium.trigger-poll.source-env";
    public static final String POLL_SOURCE_STACK = "cyclium.trigger-poll.source-stack";
    public static final String SHUTDOWN_MS = "cyclium.episode.shutdown-ms";
    public static final String JITTER_MAX_MS = "cyclium.episode.jitter-max-ms";
    public static final String MAX_CONCURRENT = "cyclium.episode.max-concurrent-default";
    public static final String EXECUTOR_THREADS = "cyclium.episode.executor-threads";
    public static final String EPISODE_EXECUTOR = "cyclium.episode.executor";
    /** The threads of the ManagedExecutorService the application defines (its maxAsync, fixed at build time). */
    public static final int MANAGED_EXECUTOR_MAX_THREADS = 32;
    public static final String GROUP_COMMIT_MAX = "cyclium.episode.group-commit-max";
    public static final String GROUP_COMMIT_WRITERS = "cyclium.episode.group-commit-writers";
    public static final String CONCURRENCY_RECHECK_MS = "cyclium.concurrency.recheck-ms";
    public static final String PRIORITY_AGING_SECONDS = "cyclium.priority.aging-seconds";
    public static final String WORKFLOW_ADVANCE_IN_COMMIT = "cyclium.workflow.advance-in-commit";
    public static final String ADMIN_PASSWORD = "cyclium.console.admin-password";
    public static final String SECURITY_IDENTITY = "cyclium.security.identity";
    public static final String OIDC_ISSUER = "cyclium.security.oidc.issuer";
    public static final String OIDC_CLIENT_ID = "cyclium.security.oidc.client-id";
    public static final String OIDC_CLIENT_SECRET = "cyclium.security.oidc.client-secret";
    public static final String OIDC_GROUPS_CLAIM = "cyclium.security.oidc.groups-claim";
    public static final String OIDC_AUDIENCE = "cyclium.security.oidc.audience";
    public static final String OIDC_CLOCK_SKEW = "cyclium.security.oidc.clock-skew";
    public static final String FAILED_LOGINS_BEFORE_DELAY = "cyclium.security.failed-logins-before-delay";
    public static final String VIEWER_PASSWORD = "cyclium.console.viewer-password";
    /** The short environment names the quick start and the issue use; the MicroProfile names work too. */
    public static final String ADMIN_PASSWORD_ENV = "CYCLIUM_ADMIN_PASSWORD";
    public static final String VIEWER_PASSWORD_ENV = "CYCLIUM_VIEWER_PASSWORD";
    public static final String CLOCK_SKEW_MS = "cyclium.clock.skew-ms";
    public static final String RETENTION_ENABLED = "cyclium.retention.enabled";
    public static final String BULK_MAX_ITEMS = "cyclium.bulk.max-items";
    public static final String BULK_LEASE_SECONDS = "cyclium.bulk.lease-seconds";
    public static final long BULK_LEASE_DEFAULT_SECONDS = 60;
    public static final String RETENTION_DAILY_AT = "cyclium.retention.daily-at";
    public static final String RETENTION_ARCHIVE_AFTER = "cyclium.retention.archive-after";
    public static final String RETENTION_PURGE_AFTER = "cyclium.retention.purge-after";
    public static final String RETENTION_CLAIMS_AFTER = "cyclium.retention.claims-after";
    public static final String RETENTION_REQUESTS_AFTER = "cyclium.retention.requests-after";
    public static final String RETENTION_AUDIT_AFTER = "cyclium.retention.audit-after";
    public static final String RETENTION_CHUNK_SIZE = "cyclium.retention.chunk-size";
    public static final String RETENTION_CATCH_UP = "cyclium.retention.catch-up";
    /** The older spelling of {@link #RETENTION_CATCH_UP} in whole minutes; still read when that one is unset. */
    public static final String RETENTION_CATCH_UP_MINUTES = "cyclium.retention.catch-up-minutes";

    /** Printable identity: letters, digits and . _ : @ - ; no spaces, no control characters. */
    static final Pattern IDENTITY = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:@-]{0,254}");
    /** Stack slugs and envs end up in keys and URLs: keep them small and plain. */
    static final Pattern SLUG = Pattern.compile("[a-z0-9][a-z0-9_-]{0,63}");

    private final ConfigSource source;
    private final List<String> problems = new ArrayList<>();

    private CycliumConfigReader(ConfigSource source) {
        this.source = source;
    }

    public static CycliumConfig read(ConfigSource source) {
        return new CycliumConfigReader(source).readAll();
    }

    /** Checks a node identity from any origin (config or a host-provided bean). */
    public static Optional<String> identityProblem(String origin, String value) {
        if (value == null || !IDENTITY.matcher(value).matches()) {
            return Optional.of(origin + " = \"" + printable(value) + "\" is not a valid node identity: allowed are 1-255"
                    + " characters from letters, digits and . _ : @ - , starting with a letter or digit");
        }
        return Optional.empty();
    }

    private CycliumConfig readAll() {
        Optional<String> identity = text(NODE_IDENTITY);
        identity.flatMap(v -> identityProblem(NODE_IDENTITY, v)).ifPresent(problems::add);

        NodeMode mode = NodeMode.FULL;
        Optional<String> rawMode = text(MODE);
        if (rawMode.isPresent()) {
            Optional<NodeMode> parsed = NodeMode.parse(rawMode.get());
            if (parsed.isEmpty()) {
                problems.add(MODE + " = \"" + printable(rawMode.get()) + "\" is not a mode: allowed are " + NodeMode.allowed());
            } else {
                mode = parsed.get();
            }
        }
        String stack = slug(STACK_SLUG);
        String env = slug(ENV);
        boolean migrate = bool(SCHEMA_MIGRATE, true);
        boolean demo = bool(DEMO_ENABLED, false);
        boolean tracing = !bool(OTEL_SDK_DISABLED, true);
        boolean claims = bool(CLAIMS_ENABLED, true);
        boolean advanceInCommit = bool(WORKFLOW_ADVANCE_IN_COMMIT, true);
        int lease = (int) number(LEASE_SECONDS, 120, 3, 86_400, "seconds");
        long minTick = number(HEARTBEAT_MIN_TICK_MS, 1000, 100, 60_000, "milliseconds");
        if (lease * 1000L / 3 < minTick && problems.stream().noneMatch(p -> p.startsWith(LEASE_SECONDS))) {
            problems.add(LEASE_SECONDS + " = " + lease + " gives a heartbeat every " + (lease * 1000L / 3)
                    + " ms, below " + HEARTBEAT_MIN_TICK_MS + " = " + minTick + " ms: allowed are leases of at least "
                    + ((minTick * 3 + 999) / 1000) + " seconds");
        }
        Duration initialDelay = millis(RECOVERY_INITIAL_DELAY_MS, 120_000, 0, 86_400_000L);
        Duration interval = millis(RECOVERY_INTERVAL_MS, 30_000, 100, 86_400_000L);
        Duration stale = millis(STALE_AFTER_MS, 120_000, 1_000, 604_800_000L);
        Duration pollInterval = millis(POLL_INTERVAL_MS, 5_000, 100, 3_600_000L);
        Duration pollExpire = millis(POLL_EXPIRE_AFTER_MS, 3_600_000, 1_000, 604_800_000L);
        int batch = (int) number(POLL_BATCH_SIZE, 10, 1, 1_000, "requests");
        String pollEnv = slug(POLL_SOURCE_ENV);
        String pollStack = slug(POLL_SOURCE_STACK);
        Duration shutdown = millis(SHUTDOWN_MS, 5_000, 0, 600_000L);
        int jitter = (int) number(JITTER_MAX_MS, 200, 0, 10_000, "milliseconds");
        int maxConcurrent = (int) number(MAX_CONCURRENT, 3, 1, 1_000, "episodes");
        int executorThreads = (int) number(EXECUTOR_THREADS, 32, 1, 1_000, "threads");
        CycliumConfig.EpisodeExecutor episodeExecutor = CycliumConfig.EpisodeExecutor.THREADS;
        Optional<String> rawExecutor = text(EPISODE_EXECUTOR);
        if (rawExecutor.isPresent()) {
            Optional<CycliumConfig.EpisodeExecutor> parsed = CycliumConfig.EpisodeExecutor.parse(rawExecutor.get());
            if (parsed.isEmpty()) {
                problems.add(EPISODE_EXECUTOR + " = \"" + printable(rawExecutor.get()) + "\" is not an executor: allowed are threads, managed");
            } else {
                episodeExecutor = parsed.get();
            }
        }
        if (episodeExecutor == CycliumConfig.EpisodeExecutor.MANAGED && executorThreads > MANAGED_EXECUTOR_MAX_THREADS) {
            problems.add(EXECUTOR_THREADS + " = " + executorThreads + " with " + EPISODE_EXECUTOR + " = managed: allowed are 1 to "
                    + MANAGED_EXECUTOR_MAX_THREADS + " (the managed executor's maxAsync, fixed when the application is built);"
                    + " use " + EPISODE_EXECUTOR + " = threads for more");
        }
        int groupCommitMax = (int) number(GROUP_COMMIT_MAX, 64, 1, 10_000, "writes");
        int groupCommitWriters = (int) number(GROUP_COMMIT_WRITERS, 1, 1, 64, "threads");
        long skew = number(CLOCK_SKEW_MS, 0, -86_400_000L, 86_400_000L, "milliseconds");
        Optional<String> password = password(ADMIN_PASSWORD, ADMIN_PASSWORD_ENV);
        Optional<String> viewerPassword = password(VIEWER_PASSWORD, VIEWER_PASSWORD_ENV);
        RetentionSettings retention = retention();
        IdentitySource identitySource = identitySource();
        Optional<OidcSettings> oidc = oidc(identitySource);
        int failedLogins = (int) number(FAILED_LOGINS_BEFORE_DELAY, 3, 1, 1_000, "failed logins");
        int bulkMaxItems = (int) number(BULK_MAX_ITEMS, 10_000, 1, 100_000, "episodes");
        // at least a chunk's worth of items must fit in one lease: the lease is renewed once per chunk
        Duration bulkLease = Duration.ofSeconds(number(BULK_LEASE_SECONDS, BULK_LEASE_DEFAULT_SECONDS, 5, 3_600, "seconds"));
        FlowSettings flow = new FlowSettings(millis(CONCURRENCY_RECHECK_MS, FlowSettings.DEFAULTS.recheck().toMillis(), 50, 60_000L),
                Duration.ofSeconds(number(PRIORITY_AGING_SECONDS, FlowSettings.DEFAULTS.aging().toSeconds(), 0, 86_400L, "seconds")));

        if (!problems.isEmpty()) {
            throw new InvalidConfigurationException(problems);
        }
        return new CycliumConfig(identity, mode, stack, env, migrate, demo, claims, lease, minTick,
                initialDelay, interval, stale, pollInterval, pollExpire, batch, pollEnv, pollStack,
                shutdown, jitter, maxConcurrent, executorThreads, groupCommitMax, groupCommitWriters, password, viewerPassword, identitySource, oidc, failedLogins, Duration.ofMillis(skew), retention, tracing,
                advanceInCommit, episodeExecutor, bulkMaxItems, bulkLease, flow);
    }

    private RetentionSettings retention() {
        RetentionSettings d = RetentionSettings.DEFAULTS;
        boolean enabled = bool(RETENTION_ENABLED, d.enabled());
        LocalTime at = d.dailyAt();
        Optional<String> rawAt = text(RETENTION_DAILY_AT);
        if (rawAt.isPresent()) {
            try {
                if (!rawAt.get().matches("\\d{2}:\\d{2}")) {
                    throw new DateTimeParseException("not HH:mm", rawAt.get(), 0);
                }
                at = LocalTime.parse(rawAt.get());
            } catch (DateTimeParseException e) {
                problems.add(RETENTION_DAILY_AT + " = \"" + printable(rawAt.get()) + "\" is not a time of day: allowed are"
                        + " HH:mm from 00:00 to 23:59 (UTC)");
            }
        }
        // An archived key no longer deduplicates: a window shorter than an hour would let a slow
        // re-delivery of the same event start a second episode within minutes.
        Duration archive = duration(RETENTION_ARCHIVE_AFTER, d.archiveAfter(), Duration.ofHours(1), Duration.ofDays(3650)).orElse(d.archiveAfter());
        Optional<Duration> purge = Optional.empty();
        Optional<String> rawPurge = text(RETENTION_PURGE_AFTER);
        if (rawPurge.isPresent() && !rawPurge.get().equalsIgnoreCase("off")) {
            purge = duration(RETENTION_PURGE_AFTER, null, Duration.ofHours(1), Duration.ofDays(3650));
        }
        // Deleting a settled claim lets its key start again at fence 1: wait far longer than any
        // straggling holder of the old fence can live (its lease is long gone by then).
        Duration claims = duration(RETENTION_CLAIMS_AFTER, d.claimsAfter(), Duration.ofHours(1), Duration.ofDays(3650)).orElse(d.claimsAfter());
        Duration requests = duration(RETENTION_REQUESTS_AFTER, d.requestsAfter(), Duration.ofHours(1), Duration.ofDays(3650)).orElse(d.requestsAfter());
        int chunk = (int) number(RETENTION_CHUNK_SIZE, d.chunkSize(), 10, 10_000, "rows");
        Duration catchUp = catchUp(d.catchUp());
        // an audit trail shorter than a day would be gone before anyone looked at it
        Duration audit = duration(RETENTION_AUDIT_AFTER, d.auditAfter(), Duration.ofDays(1), Duration.ofDays(3650)).orElse(d.auditAfter());
        return new RetentionSettings(enabled, at, archive, purge, claims, requests, chunk, catchUp, audit);
    }

    private IdentitySource identitySource() {
        Optional<String> raw = text(SECURITY_IDENTITY);
        if (raw.isEmpty()) {
            return IdentitySource.BUILTIN;
        }
        Optional<IdentitySource> parsed = IdentitySource.parse(raw.get());
        if (parsed.isEmpty()) {
            // LDAP comes through the server's realm (docs/security.md#identity)
            problems.add(SECURITY_IDENTITY + " = \"" + printable(raw.get()) + "\" is not an identity source: allowed are "
                    + IdentitySource.allowed() + " (for LDAP, configure the server's LDAP realm and choose server)");
            return IdentitySource.BUILTIN;
        }
        return parsed.get();
    }

    /**
     * The OpenID Connect client, required (all of issuer, client id and secret) when the identity
     * source is {@code oidc}, and then checked here rather than at the first login: a typo in the
     * issuer would otherwise only show as every login failing. Unused otherwise.
     */
    private Optional<OidcSettings> oidc(IdentitySource identitySource) {
        if (identitySource != IdentitySource.OIDC) {
            return Optional.empty();
        }
        String why = " (needed by " + SECURITY_IDENTITY + " = oidc)";
        Optional<String> issuer = text(OIDC_ISSUER);
        Optional<String> clientId = text(OIDC_CLIENT_ID);
        Optional<String> secret = text(OIDC_CLIENT_SECRET);
        String groupsClaim = text(OIDC_GROUPS_CLAIM).orElse("groups");
        // an API access token must be for this audience (its aud lists it, or its azp names it): the client id by default
        Optional<String> audience = text(OIDC_AUDIENCE);
        // how far the provider's clock may be off when exp and nbf are checked: small, a token lives minutes
        Duration skew = duration(OIDC_CLOCK_SKEW, Duration.ofSeconds(30), Duration.ZERO, Duration.ofMinutes(5))
                .orElse(Duration.ofSeconds(30));
        if (issuer.isEmpty()) {
            problems.add(OIDC_ISSUER + " is not set" + why + ": the provider's issuer URL, e.g. https://sso.example.com/realms/ops");
        }
        if (clientId.isEmpty()) {
            problems.add(OIDC_CLIENT_ID + " is not set" + why + ": this application's client id at the provider");
        }
        if (secret.isEmpty()) {
            problems.add(OIDC_CLIENT_SECRET + " is not set" + why + ": the client's secret (a confidential client)");
        }
        java.net.URI uri = null;
        if (issuer.isPresent()) {
            try {
                uri = new java.net.URI(issuer.get());
                // the discovery document is <issuer>/.well-known/openid-configuration: nothing may follow the path
                if (!("https".equalsIgnoreCase(uri.getScheme()) || "http".equalsIgnoreCase(uri.getScheme()))
                        || uri.getHost() == null || uri.getRawQuery() != null || uri.getRawFragment() != null) {
                    throw new java.net.URISyntaxException(issuer.get(), "not an http(s) URL without query or fragment");
                }
            } catch (java.net.URISyntaxException e) {
                problems.add(OIDC_ISSUER + " = \"" + printable(issuer.get()) + "\" is not an issuer URL: allowed is an absolute"
                        + " http or https URL without query or fragment, e.g. https://sso.example.com/realms/ops");
                uri = null;
            }
        }
        if (!groupsClaim.matches("[A-Za-z0-9_.:-]{1,128}")) {
            problems.add(OIDC_GROUPS_CLAIM + " = \"" + printable(groupsClaim) + "\" is not a claim name: allowed are 1-128"
                    + " letters, digits and _ . : -");
        }
        if (uri == null || clientId.isEmpty() || secret.isEmpty()) {
            return Optional.empty();
        }
        String trimmed = uri.toString().replaceAll("/+$", "");
        return Optional.of(new OidcSettings(java.net.URI.create(trimmed), clientId.get(), secret.get(), groupsClaim,
                audience.orElse(clientId.get()), skew));
    }

    /** An ISO-8601 duration (PT12H, P7D, P1DT6H) within [min, max]; a problem and the default otherwise. */
    private Optional<Duration> duration(String property, Duration defaultValue, Duration min, Duration max) {
        Optional<String> value = text(property);
        if (value.isEmpty()) {
            return Optional.ofNullable(defaultValue);
        }
        String upTo = max.toHours() > 0 && max.toHours() % 24 == 0 ? "P" + max.toDays() + "D" : max.toString();
        String allowed = "allowed are ISO-8601 durations from " + min + " to " + upTo + " (e.g. PT12H, P7D)";
        try {
            Duration parsed = Duration.parse(value.get().toUpperCase(Locale.ROOT));
            if (parsed.compareTo(min) < 0 || parsed.compareTo(max) > 0) {
                problems.add(property + " = " + printable(value.get()) + " is out of range: " + allowed);
                return Optional.ofNullable(defaultValue);
            }
            return Optional.of(parsed);
        } catch (DateTimeParseException e) {
            problems.add(property + " = \"" + printable(value.get()) + "\" is not a duration: " + allowed
                    + (property.equals(RETENTION_PURGE_AFTER) ? ", or off" : ""));
            return Optional.ofNullable(defaultValue);
        }
    }

    /**
     * The catch-up tick: {@code cyclium.retention.catch-up} (ISO-8601) or, when that is unset, the
     * older {@code cyclium.retention.catch-up-minutes}. The ticks are calendar timers on the wall
     * clock's seconds or minutes (every node ticks at the same instants), so the interval is whole
     * seconds from 5 to 59 or whole minutes from 1 to 60.
     */
    private Duration catchUp(Duration defaultValue) {
        if (text(RETENTION_CATCH_UP).isEmpty()) {
            return Duration.ofMinutes(number(RETENTION_CATCH_UP_MINUTES, defaultValue.toMinutes(), 1, 60, "minutes"));
        }
        if (text(RETENTION_CATCH_UP_MINUTES).isPresent()) {
            problems.add(RETENTION_CATCH_UP + " and " + RETENTION_CATCH_UP_MINUTES + " are both set: keep one ("
                    + RETENTION_CATCH_UP + " is the newer)");
        }
        Duration parsed = duration(RETENTION_CATCH_UP, defaultValue, Duration.ofSeconds(5), Duration.ofHours(1)).orElse(defaultValue);
        boolean regular = parsed.getNano() == 0 && (parsed.toSeconds() < 60 || parsed.toSeconds() % 60 == 0);
        if (!regular) {
            problems.add(RETENTION_CATCH_UP + " = " + printable(text(RETENTION_CATCH_UP).orElse("")) + " is not a whole number of"
                    + " seconds under a minute or of minutes: allowed are PT5S to PT59S and PT1M to PT60M");
            return defaultValue;
        }
        return parsed;
    }

    /** A console password: unset or at least 8 characters (the value itself never reaches a message). */
    private Optional<String> password(String property, String environmentName) {
        Optional<String> value = text(property).or(() -> text(environmentName));
        value.filter(p -> p.length() < 8).ifPresent(p ->
                problems.add(property + " is too short (" + p.length() + " characters): allowed are at least 8"));
        return value;
    }

    /** Blank counts as unset: an empty environment variable must not become an identity of "". */
    private Optional<String> text(String property) {
        return source.get(property).map(String::trim).filter(v -> !v.isEmpty());
    }

    private String slug(String property) {
        Optional<String> value = text(property);
        if (value.isPresent() && !SLUG.matcher(value.get()).matches()) {
            problems.add(property + " = \"" + printable(value.get()) + "\" is not allowed: use 1-64 characters from"
                    + " a-z, 0-9, _ and -, starting with a letter or digit");
            return null;
        }
        return value.orElse(null);
    }

    private boolean bool(String property, boolean defaultValue) {
        Optional<String> value = text(property);
        if (value.isEmpty()) {
            return defaultValue;
        }
        String v = value.get().toLowerCase(Locale.ROOT);
        if (v.equals("true") || v.equals("false")) {
            return Boolean.parseBoolean(v);
        }
        problems.add(property + " = \"" + printable(value.get()) + "\" is not a boolean: allowed are true | false");
        return defaultValue;
    }

    private long number(String property, long defaultValue, long min, long max, String unit) {
        Optional<String> value = text(property);
        if (value.isEmpty()) {
            return defaultValue;
        }
        try {
            long n = Long.parseLong(value.get());
            if (n < min || n > max) {
                problems.add(property + " = " + n + " is out of range: allowed are " + min + " to " + max + " " + unit);
                return defaultValue;
            }
            return n;
        } catch (NumberFormatException e) {
            problems.add(property + " = \"" + printable(value.get()) + "\" is not a whole number: allowed are "
                    + min + " to " + max + " " + unit);
            return defaultValue;
        }
    }

    private Duration millis(String property, long defaultValue, long min, long max) {
        return Duration.ofMillis(number(property, defaultValue, min, max, "milliseconds"));
    }

    /** Values are echoed back in messages; keep control characters out of logs. */
    private static String printable(String value) {
        if (value == null) {
            return "";
        }
        StringBuilder sb = new StringBuilder();
        value.codePoints().limit(100).forEach(c -> {
            if (Character.isISOControl(c)) {
                sb.append(String.format("\\u%04x", c));
            } else {
                sb.appendCodePoint(c);
            }
        });
        return value.length() > 100 ? sb + "…" : sb.toString();
    }
}
