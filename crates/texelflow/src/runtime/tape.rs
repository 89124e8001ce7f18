//! A run's GPU commands as data: recorded once, played into a command encoder now, or again
//! for every later run of the same graph on the same buffers (`graph::PreparedRun`). wgpu's
//! command buffers are submitted once; a tape holds handles to the pipelines, bind groups
//! and buffers, so playing it again costs the encoder's calls and nothing of the graph.

use std::sync::Arc;

/// One dispatch of a compute pass.
pub(crate) struct TapeDispatch {
    pub(crate) pipeline: Arc<wgpu::ComputePipeline>,
    pub(crate) bind_group: wgpu::BindGroup,
    pub(crate) groups: [u32; 3],
}

/// Timestamps a pass writes: the query set, the index at its start and at its end.
pub(crate) type PassTimestamps = (wgpu::QuerySet, Option<u32>, Option<u32>);

enum TapeOp {
    CopyBuffer {
        src: wgpu::Buffer,
        src_at: u64,
        dst: wgpu::Buffer,
        dst_at: u64,
        bytes: u64,
    },
    Clear(wgpu::Buffer),
    CopyToTexture {
        buffer: wgpu::Buffer,
        bytes_per_row: u32,
        texture: wgpu::Texture,
    },
    Pass {
        label: String,
        timestamps: Option<PassTimestamps>,
        dispatches: Vec<TapeDispatch>,
    },
}

/// GPU commands in order (copies, clears, compute passes), for `play`.
#[derive(Default)]
pub(crate) struct Tape {
    ops: Vec<TapeOp>,
    /// Something recorded reads data written for this run only (a staged upload): the tape
    /// plays once.
    once: bool,
}

impl Tape {
    /// A buffer-to-buffer copy.
    pub(crate) fn copy_buffer(
        &mut self,
        (src, src_at): (&wgpu::Buffer, u64),
        (dst, dst_at): (&wgpu::Buffer, u64),
        bytes: u64,
    ) {
        self.ops.push(TapeOp::CopyBuffer {
            src: src.clone(),
            src_at,
            dst: dst.clone(),
            dst_at,
            bytes,
        });
    }

    /// Zeroes all of `buffer`.
    pub(crate) fn clear(&mut self, buffer: &wgpu::Buffer) {
        self.ops.push(TapeOp::Clear(buffer.clone()));
    }

    /// Copies `buffer`, rows `bytes_per_row` apart, into all of `texture`'s first level.
    pub(crate) fn copy_to_texture(
        &mut self,
        buffer: &wgpu::Buffer,
        bytes_per_row: u32,
        texture: &wgpu::Texture,
    ) {
        self.ops.push(TapeOp::CopyToTexture {
            buffer: buffer.clone(),
            bytes_per_row,
            texture: texture.clone(),
        });
    }

    /// A compute pass of `dispatches`, in order.
    pub(crate) fn pass(
        &mut self,
        label: &str,
        timestamps: Option<PassTimestamps>,
        dispatches: Vec<TapeDispatch>,
    ) {
        self.ops.push(TapeOp::Pass {
            label: label.to_string(),
            timestamps,
            dispatches,
        });
    }

    /// Appends `other`'s commands after this tape's.
    pub(crate) fn append(&mut self, other: Tape) {
        self.ops.extend(other.ops);
        self.once |= other.once;
    }

    /// How many dispatches the tape holds.
    pub(crate) fn dispatches(&self) -> usize {
        self.ops
            .iter()
            .map(|op| match op {
                TapeOp::Pass { dispatches, .. } => dispatches.len(),
                _ => 0,
            })
            .sum()
    }

    /// Marks the tape as one to play once (it reads data written for this run only).
    pub(crate) fn mark_once(&mut self) {
        self.once = true;
    }

    /// Whether the tape may be played again.
    pub(crate) fn replayable(&self) -> bool {
        !self.once
    }

    /// Records the tape's commands into `encoder`, in order.
    pub(crate) fn play(&self, encoder: &mut wgpu::CommandEncoder) {
        for op in &self.ops {
            match op {
                TapeOp::CopyBuffer {
                    src,
                    src_at,
                    dst,
                    dst_at,
                    bytes,
                } => encoder.copy_buffer_to_buffer(src, *src_at, dst, *dst_at, *bytes),
                TapeOp::Clear(b) => encoder.clear_buffer(b, 0, None),
                TapeOp::CopyToTexture {
                    buffer,
                    bytes_per_row,
                    texture,
                } => encoder.copy_buffer_to_texture(
                    wgpu::TexelCopyBufferInfo {
                        buffer,
                        layout: wgpu::TexelCopyBufferLayout {
                            offset: 0,
                            bytes_per_row: Some(*bytes_per_row),
                            rows_per_image: Some(texture.height()),
                        },
                    },
                    texture.as_image_copy(),
                    wgpu::Extent3d {
                        width: texture.width(),
                        height: texture.height(),
                        depth_or_array_layers: 1,
                    },
                ),
                TapeOp::Pass {
                    label,
                    timestamps,
                    dispatches,
                } => {
                    let tw = timestamps.as_ref().map(|(q, begin, end)| {
                        wgpu::ComputePassTimestampWrites {
                            query_set: q,
                            beginning_of_pass_write_index: *begin,
                            end_of_pass_write_index: *end,
                        }
                    });
                    let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                        label: Some(label),
                        timestamp_writes: tw,
                    });
                    for d in dispatches {
                        pass.set_pipeline(&d.pipeline);
                        pass.set_bind_group(0, &d.bind_group, &[]);
                        pass.dispatch_workgroups(d.groups[0], d.groups[1], d.groups[2]);
                    }
                }
            }
        }
    }
}
