package io.cyclium.console.security;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ApiRefusalsTest {

    @Test
    void an_api_path_counts_however_it_is_spelled() {
        assertThat(ApiRefusals.isApiPath("/cyclium", "/cyclium/api/events")).isTrue();
        assertThat(ApiRefusals.isApiPath("/cyclium", "/cyclium/%61pi/events")).isTrue();
        assertThat(ApiRefusals.isApiPath("/cyclium", "/cyclium/api;jsessionid=x/events")).isTrue();
        assertThat(ApiRefusals.isApiPath("/cyclium", "/cyclium/%2561pi/events")).as("decoded once, like the container").isFalse();
    }

    @Test
    void pages_and_lookalikes_are_not_the_api() {
        assertThat(ApiRefusals.isApiPath("/cyclium", "/cyclium/index.xhtml")).isFalse();
        assertThat(ApiRefusals.isApiPath("/cyclium", "/cyclium/apis/x")).isFalse();
        assertThat(ApiRefusals.isApiPath("/cyclium", "/other/api/events")).isFalse();
        assertThat(ApiRefusals.isApiPath("/cyclium", null)).isFalse();
        assertThat(ApiRefusals.isApiPath("/cyclium", "/cyclium/%zz/api/x")).isFalse();
    }
}
