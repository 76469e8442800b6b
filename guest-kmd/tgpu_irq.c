// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* Copyright (c) 2026 The tgpu authors */

#include <linux/build_bug.h>
#include <linux/device.h>
#include <linux/interrupt.h>
#include <linux/pci.h>

#include "tgpu_device.h"
#include "tgpu_irq.h"

/*
 * The device signals one MSI-X vector per source class (TGPU_MSIX_VEC_*).
 * Interface 1.0 defines no interrupt source behind any of them yet, so the
 * handlers only count; each unit adds its own handling here as it grows
 * one.  An MSI-X vector is never shared, so whatever arrives on it is ours.
 */
static irqreturn_t tgpu_irq_vector(struct tgpu_device *tdev, unsigned int vec)
{
	atomic64_inc(&tdev->irq.count[vec]);
	return IRQ_HANDLED;
}

static irqreturn_t tgpu_irq_stall(int irq, void *data)
{
	return tgpu_irq_vector(data, TGPU_MSIX_VEC_STALL);
}

static irqreturn_t tgpu_irq_nonstall(int irq, void *data)
{
	return tgpu_irq_vector(data, TGPU_MSIX_VEC_NONSTALL);
}

static irqreturn_t tgpu_irq_mmu(int irq, void *data)
{
	return tgpu_irq_vector(data, TGPU_MSIX_VEC_MMU);
}

static irqreturn_t tgpu_irq_ecc(int irq, void *data)
{
	return tgpu_irq_vector(data, TGPU_MSIX_VEC_ECC);
}

static irqreturn_t tgpu_irq_thermal(int irq, void *data)
{
	return tgpu_irq_vector(data, TGPU_MSIX_VEC_THERMAL);
}

static const struct tgpu_irq_vector_desc {
	const char *name;
	irq_handler_t handler;
} tgpu_irq_vectors[] = {
	[TGPU_MSIX_VEC_STALL] = { "stall", tgpu_irq_stall },
	[TGPU_MSIX_VEC_NONSTALL] = { "nonstall", tgpu_irq_nonstall },
	[TGPU_MSIX_VEC_MMU] = { "mmu", tgpu_irq_mmu },
	[TGPU_MSIX_VEC_ECC] = { "ecc", tgpu_irq_ecc },
	[TGPU_MSIX_VEC_THERMAL] = { "thermal", tgpu_irq_thermal },
};

static_assert(ARRAY_SIZE(tgpu_irq_vectors) == TGPU_MSIX_NR_VECTORS);

/*
 * With a single vector every source class shares it.  Interface 1.0 has
 * no interrupt status register to tell them apart, so the combined handler
 * only counts.  A message-signalled vector is ours alone; an INTx line may
 * be shared with other devices, and with nothing to read that says the
 * tgpu raised it, the handler cannot claim it.
 */
static irqreturn_t tgpu_irq_combined(int irq, void *data)
{
	struct tgpu_device *tdev = data;

	if (tdev->irq.mode == TGPU_IRQ_MODE_INTX)
		return IRQ_NONE;

	atomic64_inc(&tdev->irq.combined);
	return IRQ_HANDLED;
}

static int tgpu_irq_request(struct tgpu_device *tdev, unsigned int nr,
			    const char *what, irq_handler_t handler,
			    unsigned long flags)
{
	struct pci_dev *pdev = tdev->pdev;
	struct device *dev = &pdev->dev;
	const char *name;
	int irq, ret;

	irq = pci_irq_vector(pdev, nr);
	if (irq < 0)
		return dev_err_probe(dev, irq, "no IRQ for vector %u (%s)\n",
				     nr, what ?: "combined");

	/* Shown in /proc/interrupts, e.g. "tgpu-stall@0000:01:00.0". */
	if (what)
		name = devm_kasprintf(dev, GFP_KERNEL, "%s-%s@%s",
				      TGPU_DRIVER_NAME, what, pci_name(pdev));
	else
		name = devm_kasprintf(dev, GFP_KERNEL, "%s@%s",
				      TGPU_DRIVER_NAME, pci_name(pdev));
	if (!name)
		return -ENOMEM;

	ret = devm_request_irq(dev, irq, handler, flags, name, tdev);
	if (ret)
		return dev_err_probe(dev, ret, "cannot request IRQ %d (%s)\n",
				     irq, name);
	return 0;
}

/**
 * tgpu_irq_init() - allocate interrupt vectors and install their handlers
 * @tdev: the device, with the PCI function enabled
 *
 * Asks for TGPU_MSIX_NR_VECTORS MSI-X vectors, one handler per source
 * class.  If the platform cannot give that many, falls back to a single
 * vector (MSI-X, MSI or INTx, in that order) with one combined handler.
 *
 * The vectors are freed by the PCI core (the device is pcim-managed) and
 * the handlers by devres, handlers first, when the driver unbinds.
 *
 * Return: 0 on success, a negative errno otherwise.
 */
int tgpu_irq_init(struct tgpu_device *tdev)
{
	struct tgpu_irq *tirq = &tdev->irq;
	struct pci_dev *pdev = tdev->pdev;
	struct device *dev = &pdev->dev;
	int nvec, msix_err, ret;
	unsigned int i;

	nvec = pci_alloc_irq_vectors(pdev, TGPU_MSIX_NR_VECTORS,
				     TGPU_MSIX_NR_VECTORS, PCI_IRQ_MSIX);
	msix_err = nvec;
	if (nvec < 0) {
		nvec = pci_alloc_irq_vectors(pdev, 1, 1, PCI_IRQ_ALL_TYPES);
		if (nvec < 0)
			return dev_err_probe(dev, nvec,
					     "cannot allocate an interrupt vector\n");
	}

	tirq->nr_vectors = nvec;
	if (pdev->msix_enabled)
		tirq->mode = TGPU_IRQ_MODE_MSIX;
	else if (pdev->msi_enabled)
		tirq->mode = TGPU_IRQ_MODE_MSI;
	else
		tirq->mode = TGPU_IRQ_MODE_INTX;

	if (nvec == TGPU_MSIX_NR_VECTORS) {
		for (i = 0; i < TGPU_MSIX_NR_VECTORS; i++) {
			ret = tgpu_irq_request(tdev, i, tgpu_irq_vectors[i].name,
					       tgpu_irq_vectors[i].handler, 0);
			if (ret)
				return ret;
		}
	} else {
		ret = tgpu_irq_request(tdev, 0, NULL, tgpu_irq_combined,
				       tirq->mode == TGPU_IRQ_MODE_INTX ?
				       IRQF_SHARED : 0);
		if (ret)
			return ret;
		dev_warn(dev, "cannot allocate %u MSI-X vectors (%d), using a single combined %s interrupt\n",
			 TGPU_MSIX_NR_VECTORS, msix_err,
			 tirq->mode == TGPU_IRQ_MODE_MSIX ? "MSI-X" :
			 tirq->mode == TGPU_IRQ_MODE_MSI ? "MSI" : "INTx");
	}

	return 0;
}

/**
 * tgpu_irq_msix_vectors() - number of MSI-X vectors in use
 * @tdev: the device
 *
 * Return: the number of MSI-X vectors enabled, 0 when interrupts are
 * delivered by MSI or INTx instead.
 */
unsigned int tgpu_irq_msix_vectors(const struct tgpu_device *tdev)
{
	if (tdev->irq.mode != TGPU_IRQ_MODE_MSIX)
		return 0;
	return tdev->irq.nr_vectors;
}
