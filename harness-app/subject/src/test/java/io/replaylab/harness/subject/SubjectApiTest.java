package io.replaylab.harness.subject;

import static org.assertj.core.api.Assertions.assertThat;

import io.replaylab.evidence.junit.PublicTypes;
import org.junit.jupiter.api.Test;

/**
 * harness-subject offers the reference subject as lab values and as a program (its picocli command, which the CLI mounts as
 * {@code subject}), and the client options its commands and the CLI's share.
 */
class SubjectApiTest {
    @Test
    void theOnlyPublicTypesAreTheSubjectValuesAndItsCommand() {
        assertThat(PublicTypes.names("io.replaylab.harness.subject"))
                .containsExactlyInAnyOrder("io.replaylab.harness.subject.ReferenceSubject", "io.replaylab.harness.subject.SubjectCommand",
                        "io.replaylab.harness.subject.ClientOptions");
    }
}
