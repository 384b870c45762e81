package io.replaylab.evidence;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;

/** A setting is named by its value: the library's words in its messages, a front end's by renaming exactly the settings a refusal names. */
class SettingTest {
    private static final Setting WITNESS = Setting.of("LabSettings", "witness");
    private static final Setting NO_WITNESS = WITNESS.to("false");
    private static final Setting COMMAND = Setting.of("Subject", "command").saidAs("the subject command");

    @Test
    void aSettingSaysItselfAsTheLibrarysMessagesDo() {
        assertThat(WITNESS).hasToString("LabSettings.witness");
        assertThat(NO_WITNESS).hasToString("LabSettings.witness false");
        assertThat(COMMAND).hasToString("the subject command");
        assertThat(NO_WITNESS).isNotEqualTo(WITNESS);
    }

    @Test
    void renamingReplacesOnlyTheNamedSettingsTheLongestFirst() {
        String text = "no proxy (" + NO_WITNESS + "); set " + WITNESS + "; " + COMMAND + " is empty; LabSettings.records stays";
        assertThat(Setting.rename(text, List.of(WITNESS, NO_WITNESS, COMMAND), s -> s.equals(NO_WITNESS) ? "--no-witness"
                : s.equals(WITNESS) ? "--witness" : "--subject-cmd"))
                .isEqualTo("no proxy (--no-witness); set --witness; --subject-cmd is empty; LabSettings.records stays");
        BadInputException e = new BadInputException("bad " + COMMAND, COMMAND);
        assertThat(e.settings()).containsExactly(COMMAND);
        assertThat(e).hasMessage("bad the subject command").isInstanceOf(IllegalArgumentException.class);
    }
}
