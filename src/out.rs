//! Standard output that notices when it is lost: a reader that went away
//! (`fray rules | head -1`) or a disk that filled up. Writes after the first
//! failure are dropped; the command asks [`Out::finish`] how it went.

use std::io::{self, Write};

/// Standard output, locked, remembering its first write error.
pub struct Out {
    inner: io::StdoutLock<'static>,
    lost: Option<io::Error>,
}

/// How the output was lost.
pub enum Lost {
    /// The reader closed the pipe: end quietly.
    ClosedPipe,
    /// Anything else (a full disk): say so.
    Error(io::Error),
}

impl Out {
    pub fn new() -> Self {
        Self {
            inner: io::stdout().lock(),
            lost: None,
        }
    }

    /// Hide what was printed before the next player looks: on a terminal,
    /// clear the screen and what it scrolled back; elsewhere, scroll it
    /// away.
    pub fn hide_above(&mut self) {
        use io::IsTerminal;
        let _ = if self.inner.is_terminal() {
            write!(self, "\x1b[H\x1b[2J\x1b[3J")
        } else {
            writeln!(self, "{}", "\n".repeat(60))
        };
    }

    /// Whether a write has failed: there is no point going on.
    pub fn is_lost(&self) -> bool {
        self.lost.is_some()
    }

    /// Flush, then say whether everything written arrived.
    pub fn finish(mut self) -> Result<(), Lost> {
        let _ = self.flush();
        match self.lost {
            None => Ok(()),
            Some(e) if e.kind() == io::ErrorKind::BrokenPipe => Err(Lost::ClosedPipe),
            Some(e) => Err(Lost::Error(e)),
        }
    }

    fn note(&mut self, result: io::Result<()>) {
        if let Err(e) = result
            && self.lost.is_none()
        {
            self.lost = Some(e);
        }
    }
}

impl Write for Out {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.lost.is_none() {
            let result = self.inner.write_all(buf);
            self.note(result);
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.lost.is_none() {
            let result = self.inner.flush();
            self.note(result);
        }
        Ok(())
    }
}
