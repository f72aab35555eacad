package io.cyclium.console.security;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ApiRequestGuardTest {

    @Test
    void json_is_application_json_or_a_json_suffix_with_any_parameters() {
        assertThat(ApiRequestGuard.isJson("application/json")).isTrue();
        assertThat(ApiRequestGuard.isJson("Application/JSON; charset=ISO-8859-1")).isTrue();
        assertThat(ApiRequestGuard.isJson("application/merge-patch+json")).isTrue();
        assertThat(ApiRequestGuard.isJson("text/plain")).isFalse();
        assertThat(ApiRequestGuard.isJson("text/plain; x=application/json")).isFalse();
        assertThat(ApiRequestGuard.isJson("application/x-www-form-urlencoded")).isFalse();
        assertThat(ApiRequestGuard.isJson("multipart/form-data; boundary=x")).isFalse();
        assertThat(ApiRequestGuard.isJson("text/json+json")).isFalse();
    }

    @Test
    void an_origin_is_compared_by_host_and_the_port_it_names() {
        assertThat(ApiRequestGuard.authority("http://127.0.0.1:8080")).isEqualTo("127.0.0.1:8080");
        assertThat(ApiRequestGuard.authority("https://cyclium.example.com")).isEqualTo("cyclium.example.com");
        assertThat(ApiRequestGuard.authority("HTTP://[::1]:8080")).isEqualTo("[::1]:8080");
    }

    @Test
    void null_and_non_http_origins_match_no_host() {
        assertThat(ApiRequestGuard.authority("null")).isNull();
        assertThat(ApiRequestGuard.authority("file://")).isNull();
        assertThat(ApiRequestGuard.authority("chrome-extension://abcdef")).isNull();
        assertThat(ApiRequestGuard.authority("http://exa mple")).isNull();
    }
}
